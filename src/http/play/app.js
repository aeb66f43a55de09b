// @ts-check
// The page: the start (a name, a new table or an invite code), then the
// table, kept live. The game's id is in the address (`#game=<id>`), so a
// reload comes back to the same table.

import { ApiError, call, forgetPlayer, signIn, storedPlayer, watch } from './api.js';
import { t, lang } from './i18n.js';
import { el, renderTable } from './table.js';

/** @typedef {import('./api.js').GameView} GameView */
/** @typedef {import('./api.js').Move} Move */
/** @typedef {import('./api.js').NewGame} NewGame */
/** @typedef {import('./api.js').Hint} Hint */
/** @typedef {import('./api.js').DealAnalysis} DealAnalysis */
/** @typedef {import('kaarttafel-api').components['schemas']['KlaverjassenOptions']} KlaverjassenOptions */

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const notice = /** @type {HTMLElement} */ (document.getElementById('notice'));
const live = /** @type {HTMLElement} */ (document.getElementById('live'));
document.documentElement.lang = lang;
document.title = t('title');

/** Says `text` in the notice line (an alert when it is an error). */
function say(text = '', error = false) {
  notice.textContent = text;
  notice.className = error ? 'error' : '';
  notice.setAttribute('role', error ? 'alert' : 'status');
}

/** @param {unknown} error */
function sayError(error) {
  if (error instanceof ApiError) {
    if (error.problem.status === 401) forgetPlayer();
    say(t(error.problem.status === 422 || error.problem.status === 409 ? 'refused' : 'error', { detail: error.problem.detail }), true);
  } else {
    say(t('error', { detail: String(error) }), true);
  }
}

/**
 * A labelled form control.
 * @param {string} label
 * @param {HTMLElement} control
 * @param {string} id
 */
function field(label, control, id) {
  control.id = id;
  const l = el('label', '', label);
  l.setAttribute('for', id);
  return el('p', 'field', l, control);
}

/**
 * A `<select>` of `values`, labelled by `label(value)`.
 * @param {(string | number)[]} values
 * @param {string | number} chosen
 * @param {(value: string) => string} [label]
 */
function select(values, chosen, label = (v) => v) {
  const s = /** @type {HTMLSelectElement} */ (el('select'));
  for (const v of values) {
    const o = /** @type {HTMLOptionElement} */ (el('option', '', label(String(v))));
    o.value = String(v);
    o.selected = v === chosen;
    s.append(o);
  }
  return s;
}

/**
 * The values each Klaverjassen house rule may take, the default first.
 * @type {{
 *   trump_obligation: NonNullable<KlaverjassenOptions['trump_obligation']>[],
 *   undertrump: NonNullable<KlaverjassenOptions['undertrump']>[],
 *   trump_choice: NonNullable<KlaverjassenOptions['trump_choice']>[],
 *   four_jacks: NonNullable<KlaverjassenOptions['four_jacks']>[],
 * }}
 */
const HOUSE_RULES = {
  trump_obligation: ['rotterdam', 'amsterdam'],
  undertrump: ['last_resort', 'required'],
  trump_choice: ['voorhand', 'pass_round'],
  four_jacks: [200, 100],
};

/**
 * The one of `values` a `<select>` chose (its value is their text).
 * @template {string | number} T
 * @param {T[]} values
 * @param {string} value
 * @returns {T}
 */
function chosen(values, value) {
  return values.find((v) => String(v) === value) ?? values[0];
}

/** @param {number} from @param {number} to */
const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The start: a name, then a Klaverjassen or Potverteren table, or an invite code. */
function showStart() {
  stopWatching();
  history.replaceState(null, '', location.pathname + location.search);
  main.replaceChildren();
  const name = /** @type {HTMLInputElement} */ (el('input'));
  name.value = storedPlayer()?.name ?? '';
  name.required = true;
  name.maxLength = 40;
  name.setAttribute('autocomplete', 'nickname');
  main.append(el('section', 'start-name', field(t('your_name'), name, 'name')));

  /** Creates a table with `body`, then opens it. @param {NewGame} body */
  async function create(body) {
    try {
      const player = await signIn(name.value.trim() || 'Gast');
      /** @type {GameView} */
      const view = await call('POST', 'v1/games', { token: player.token, body });
      openTable(view.id);
    } catch (error) {
      sayError(error);
    }
  }

  // Klaverjassen: the computer players fill every seat not kept for a friend.
  const level = select(['basic', 'strong'], 'basic', t);
  const hints = /** @type {HTMLInputElement} */ (el('input'));
  hints.type = 'checkbox';
  hints.checked = true;
  const deals = select([1, 4, 8, 16], 16);
  const kjFriends = select(range(0, 3), 0);
  const kjStart = el('button', 'primary', t('start'));
  kjStart.id = 'start-klaverjassen';
  // The house rules (RULES.md section 3), each defaulting to the Rotterdam club's.
  const obligation = select(HOUSE_RULES.trump_obligation, 'rotterdam', (v) => t(`rule_${v}`));
  const undertrump = select(HOUSE_RULES.undertrump, 'last_resort', (v) => t(`rule_${v}`));
  const trumpChoice = select(HOUSE_RULES.trump_choice, 'voorhand', (v) => t(`rule_${v}`));
  const fourJacks = select(HOUSE_RULES.four_jacks, 200, (v) => t('rule_four_jacks_points', { n: v }));
  const rules = el('fieldset', 'house-rules', el('legend', '', t('house_rules')),
    field(t('trump_obligation'), obligation, 'kj-trump-obligation'),
    field(t('undertrump'), undertrump, 'kj-undertrump'),
    field(t('trump_choice'), trumpChoice, 'kj-trump-choice'),
    field(t('four_jacks'), fourJacks, 'kj-four-jacks'));
  const kjForm = el('form', 'new-table', el('h2', '', t('against_computer')),
    field(t('level'), level, 'kj-level'), field(t('hints'), hints, 'kj-hints'),
    field(t('deals'), deals, 'kj-deals'), field(t('friends'), kjFriends, 'kj-friends'), rules, kjStart);
  kjForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const friends = Number(kjFriends.value);
    const lvl = level.value === 'strong' ? 'strong' : 'basic';
    void create({
      game: 'klaverjassen',
      options: {
        deals: Number(deals.value),
        hints: hints.checked,
        auto_deal: true,
        private: friends > 0,
        trump_obligation: chosen(HOUSE_RULES.trump_obligation, obligation.value),
        undertrump: chosen(HOUSE_RULES.undertrump, undertrump.value),
        trump_choice: chosen(HOUSE_RULES.trump_choice, trumpChoice.value),
        four_jacks: chosen(HOUSE_RULES.four_jacks, fourJacks.value),
      },
      bots: range(1 + friends, 3).map((seat) => ({ seat, level: lvl })),
    });
  });

  // Potverteren: 5 to 10 seats, the same way.
  const potSeats = select(range(5, 10), 5);
  const potFriends = select(range(0, 9), 0);
  const potLevel = select(['basic', 'strong'], 'basic', t);
  const potStart = el('button', 'primary', t('start'));
  potStart.id = 'start-potverteren';
  const potForm = el('form', 'new-table', el('h2', '', t('pot_table')),
    field(t('seats'), potSeats, 'pot-seats'), field(t('level'), potLevel, 'pot-level'),
    field(t('friends'), potFriends, 'pot-friends'), potStart);
  potForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const n = Number(potSeats.value);
    const friends = Math.min(Number(potFriends.value), n - 1);
    const lvl = potLevel.value === 'strong' ? 'strong' : 'basic';
    void create({
      game: 'potverteren',
      options: { seats: n, auto_deal: true, private: friends > 0 },
      bots: range(1 + friends, n - 1).map((seat) => ({ seat, level: lvl })),
    });
  });

  // A friend's table, by its invite code.
  const code = /** @type {HTMLInputElement} */ (el('input'));
  code.autocomplete = 'off';
  code.spellcheck = false;
  const joinButton = el('button', 'primary', t('join'));
  joinButton.id = 'join';
  const joinForm = el('form', 'new-table', el('h2', '', t('join_by_code')), field(t('invite_code'), code, 'invite-code'), joinButton);
  joinForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const player = await signIn(name.value.trim() || 'Gast');
      const path = `v1/invites/${encodeURIComponent(code.value.trim().toUpperCase())}`;
      /** @type {import('./api.js').Invite} */
      const invite = await call('GET', path, { token: player.token });
      say(t('invited_by', { host: invite.host_name, game: t(invite.table.game) }));
      /** @type {GameView} */
      const view = await call('POST', path, { token: player.token, body: {} });
      openTable(view.id);
    } catch (error) {
      sayError(error);
    }
  });

  main.append(el('div', 'choices', kjForm, potForm, joinForm));
}

/** The table being shown, and what stops its live updates. */
let current = {
  /** @type {AbortController | null} */ stop: null,
  /** @type {GameView | null} */ view: null,
  /** @type {Hint | null} */ hint: null,
  /** @type {DealAnalysis | null} */ analysis: null,
  /** @type {number} */ analysed: 0,
};

function stopWatching() {
  current.stop?.abort();
  current = { stop: null, view: null, hint: null, analysis: null, analysed: 0 };
}

/** Opens game `id` and keeps it live. @param {string} id */
function openTable(id) {
  const player = storedPlayer();
  if (!player) return showStart();
  stopWatching();
  say();
  history.replaceState(null, '', `#game=${id}`);
  const stop = new AbortController();
  current.stop = stop;
  main.replaceChildren(el('p', 'loading', '…'));
  watch(id, player.token, (view) => {
    if (current.stop === stop) show(view, player.token);
  }, (mode) => { live.textContent = t(mode === 'stream' ? 'live_stream' : 'live_poll'); }, stop.signal)
    .catch((error) => { sayError(error); showStart(); });
}

/**
 * Shows `view` unless a newer one is shown (a move's answer and the live
 * update both bring the version the move made).
 * @param {GameView} view
 * @param {string} token
 */
function show(view, token) {
  if (current.view && view.version <= current.view.version) return;
  if (current.hint && current.hint.version !== view.version) current.hint = null;
  current.view = view;
  draw();
  void analyse(view, token);
}

/**
 * Fetches the analysis of the last finished Klaverjassen deal, once per deal.
 * @param {GameView} view
 * @param {string} token
 */
async function analyse(view, token) {
  const last = view.klaverjassen?.deals.at(-1);
  if (!last || last.number === current.analysed) return;
  current.analysed = last.number;
  try {
    current.analysis = await call('GET', `v1/games/${view.id}/deals/${last.number}/analysis`, { token });
    draw();
  } catch (error) {
    current.analysed = 0;
    sayError(error);
  }
}

/** Draws the current view, keeping the keyboard focus on the same control. */
function draw() {
  const view = current.view;
  const player = storedPlayer();
  if (!view || !player) return;
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.key : undefined;
  const table = renderTable(view, {
    play: (move) => void send(view, player.token, move),
    askHint: view.options.hints ? () => void askHint(view, player.token) : null,
    hint: current.hint,
    analysis: current.analysis,
  });
  const back = el('button', 'back', t('leave_table'));
  back.addEventListener('click', showStart);
  main.replaceChildren(table, back);
  tick();
  if (focused) {
    const again = [...main.querySelectorAll('[data-key]')]
      .find((n) => n instanceof HTMLElement && n.dataset.key === focused);
    if (again instanceof HTMLElement) again.focus();
    else main.querySelector('.hand-cards .legal, .moves button')?.closest('section')?.querySelector('button')?.focus();
  }
}

/**
 * Sends `move` with the version it was chosen on; a refusal shows its detail.
 * @param {GameView} view
 * @param {string} token
 * @param {Move} move
 */
async function send(view, token, move) {
  try {
    say();
    /** @type {GameView} */
    const next = await call('POST', `v1/games/${view.id}/moves`, { token, body: { move, expected_version: view.version } });
    if (current.view?.id === next.id) show(next, token);
  } catch (error) {
    sayError(error);
  }
}

/**
 * Asks for the strong player's advice for this seat now.
 * @param {GameView} view
 * @param {string} token
 */
async function askHint(view, token) {
  try {
    current.hint = await call('GET', `v1/games/${view.id}/hint`, { token });
    draw();
  } catch (error) {
    sayError(error);
  }
}

/** Counts the clock down, each second. */
function tick() {
  for (const clock of main.querySelectorAll('.clock')) {
    if (!(clock instanceof HTMLElement) || !clock.dataset.deadline) continue;
    const left = Math.max(0, Math.round((Date.parse(clock.dataset.deadline) - Date.now()) / 1000));
    clock.textContent = t('seconds_left', { s: left });
  }
}
setInterval(tick, 1000);

const game = new URLSearchParams(location.hash.slice(1)).get('game');
if (game && storedPlayer()) openTable(game);
else showStart();
