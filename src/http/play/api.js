// @ts-check
// The public API, through fetch: the guest player kept in localStorage,
// calls that turn a problem+json answer into an ApiError, and live views
// (the event stream, falling back to long poll).

/** @typedef {import('kaarttafel-api').components['schemas']} Schemas */
/** @typedef {Schemas['GameView']} GameView */
/** @typedef {Schemas['CreatedPlayer']} CreatedPlayer */
/** @typedef {Schemas['MoveSchema']} Move */
/** @typedef {Schemas['Problem']} Problem */
/** @typedef {Schemas['NewGame']} NewGame */
/** @typedef {Schemas['Invite']} Invite */
/** @typedef {Schemas['Hint']} Hint */
/** @typedef {Schemas['DealAnalysis']} DealAnalysis */

/** The API's root: the page lives at `<root>/play`, the scripts in `<root>/play/`. */
const ROOT = new URL('../', import.meta.url);
const PLAYER_KEY = 'kaarttafel.player';

/** An error answer, with its problem body. */
export class ApiError extends Error {
  /** @param {Problem} problem */
  constructor(problem) {
    super(problem.detail);
    this.problem = problem;
  }
}

/** @returns {CreatedPlayer | null} the guest player this browser keeps */
export function storedPlayer() {
  try {
    const kept = JSON.parse(localStorage.getItem(PLAYER_KEY) ?? 'null');
    return kept && typeof kept.token === 'string' ? kept : null;
  } catch {
    return null;
  }
}

/** Forgets the guest player (its token was refused). */
export function forgetPlayer() {
  localStorage.removeItem(PLAYER_KEY);
}

/**
 * Calls the API at `path` (relative, such as `v1/games`).
 * @param {string} method
 * @param {string} path
 * @param {{ token?: string, body?: unknown, signal?: AbortSignal }} [options]
 * @returns {Promise<any>} the JSON answer
 */
export async function call(method, path, { token, body, signal } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const answer = await fetch(new URL(path, ROOT), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
  const text = await answer.text();
  const json = text ? JSON.parse(text) : null;
  if (!answer.ok) {
    throw new ApiError(json && typeof json.detail === 'string'
      ? json
      : { type: 'about:blank', title: answer.statusText, status: answer.status, detail: text || answer.statusText, code: 'http_error' });
  }
  return json;
}

/**
 * The guest player named `name`: the kept one (renamed if needed), else a new one.
 * @param {string} name
 * @returns {Promise<CreatedPlayer>}
 */
export async function signIn(name) {
  const kept = storedPlayer();
  if (kept && Date.parse(kept.expires_at) > Date.now() + 60_000) {
    try {
      if (kept.name !== name) await call('PATCH', 'v1/players/me', { token: kept.token, body: { name } });
      const player = { ...kept, name };
      localStorage.setItem(PLAYER_KEY, JSON.stringify(player));
      return player;
    } catch (error) {
      if (!(error instanceof ApiError) || error.problem.status !== 401) throw error;
    }
  }
  /** @type {CreatedPlayer} */
  const player = await call('POST', 'v1/players', { body: { name } });
  localStorage.setItem(PLAYER_KEY, JSON.stringify(player));
  return player;
}

/**
 * Calls `onView` with the caller's view of game `id` now and on every change,
 * until `signal` aborts: through the event stream, read with fetch (an
 * `EventSource` cannot send the `Authorization` header, and a token in the URL
 * would end up in access logs), falling back to long poll when the stream
 * cannot be held. `onMode` hears which one is in use.
 * @param {string} id
 * @param {string} token
 * @param {(view: GameView) => void} onView
 * @param {(mode: 'stream' | 'poll') => void} onMode
 * @param {AbortSignal} signal
 */
export async function watch(id, token, onView, onMode, signal) {
  let version = -1;
  /** @param {GameView} view */
  const seen = (view) => {
    if (view.version > version) {
      version = view.version;
      onView(view);
    }
  };
  let failures = 0;
  while (!signal.aborted && failures < 3) {
    try {
      onMode('stream');
      await stream(id, token, version, seen, signal);
      failures = 0;
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && error.problem.status === 401) throw error;
      failures += 1;
    }
    await pause(1000, signal);
  }
  onMode('poll');
  while (!signal.aborted) {
    try {
      const wait = version < 0 ? '' : `?wait_for_version=${version}&timeout_s=30`;
      seen(await call('GET', `v1/games/${id}${wait}`, { token, signal }));
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof ApiError && error.problem.status === 401) throw error;
      await pause(2000, signal);
    }
  }
}

/**
 * Reads `text/event-stream` from the game's stream until it ends.
 * @param {string} id
 * @param {string} token
 * @param {number} last the last version seen (sent as `Last-Event-ID`)
 * @param {(view: GameView) => void} seen
 * @param {AbortSignal} signal
 */
async function stream(id, token, last, seen, signal) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'text/event-stream', Authorization: `Bearer ${token}` };
  if (last >= 0) headers['Last-Event-ID'] = String(last);
  const answer = await fetch(new URL(`v1/games/${id}/stream`, ROOT), { headers, signal });
  if (!answer.ok || !answer.body) {
    throw new ApiError(await answer.json().catch(() => ({
      type: 'about:blank', title: answer.statusText, status: answer.status, detail: answer.statusText, code: 'http_error',
    })));
  }
  const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of frame.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trimStart();
      }
      if (event === 'view' && data) seen(JSON.parse(data));
      else if (event === 'signed_out') throw new ApiError(JSON.parse(data));
    }
  }
}

/**
 * Waits `ms` milliseconds, or less when `signal` aborts.
 * @param {number} ms
 * @param {AbortSignal} signal
 * @returns {Promise<void>}
 */
function pause(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}
