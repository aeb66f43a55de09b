// @ts-check
// Plays a whole Klaverjassen deal against three computer players and a
// Potverteren round against four, with nothing but the client typed from
// openapi/openapi.json (openapi-fetch over the types openapi-typescript
// generated into gen/schema.d.ts). tsc checks this file against those types.
//
//   KAARTTAFEL_URL=http://127.0.0.1:8080 node play.mjs
//
// Prints one line per check and a closing "N passed, N failed".

import createClient from 'openapi-fetch';

/** @typedef {import('./gen/schema.d.ts').paths} Paths */
/** @typedef {import('./gen/schema.d.ts').components['schemas']} Schemas */
/** @typedef {Schemas['GameView']} GameView */
/** @typedef {Schemas['MoveSchema']} Move */

const base = process.env.KAARTTAFEL_URL ?? 'http://127.0.0.1:8080';
/** Moves before giving up on a game (a deal takes 33 of the caller's at most). */
const MOVE_LIMIT = 500;

let passed = 0;
let failed = 0;
/**
 * @param {string} name
 * @param {boolean} ok
 * @param {string} [detail]
 */
function check(name, ok, detail = '') {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? `: ${detail}` : ''}`);
}

/**
 * The data of an answer, or an exception naming the problem.
 * @template T
 * @param {{ data?: T, error?: unknown, response: Response }} answer
 * @returns {T}
 */
function ok(answer) {
  if (answer.data === undefined) {
    throw new Error(`${answer.response.status} ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}

/** @type {import('openapi-fetch').Client<Paths>} */
const api = createClient({ baseUrl: base });

/**
 * A new guest player and the headers that authenticate it.
 * @param {string} name
 */
async function guest(name) {
  const player = ok(await api.POST('/v1/players', { body: { name } }));
  return { player, headers: { Authorization: `Bearer ${player.token}` } };
}

/**
 * Plays `game` for the caller until `done(view)`: whenever a move is the
 * caller's, `choose` picks one of its legal moves; otherwise it waits for
 * the next version (long poll).
 * @param {string} id
 * @param {{ Authorization: string }} headers
 * @param {(view: GameView) => boolean} done
 * @param {(view: GameView) => Move} choose
 * @returns {Promise<{ view: GameView, moves: number }>}
 */
async function playUntil(id, headers, done, choose) {
  let view = ok(await api.GET('/v1/games/{id}', { params: { path: { id } }, headers }));
  let moves = 0;
  while (!done(view)) {
    if (moves > MOVE_LIMIT) throw new Error(`no end after ${MOVE_LIMIT} moves`);
    if (view.legal_moves.length > 0) {
      const move = choose(view);
      view = ok(await api.POST('/v1/games/{id}/moves', {
        params: { path: { id } },
        headers,
        body: { move, expected_version: view.version },
      }));
      moves += 1;
    } else {
      view = ok(await api.GET('/v1/games/{id}', {
        params: { path: { id }, query: { wait_for_version: view.version, timeout_s: 10 } },
        headers,
      }));
    }
  }
  return { view, moves };
}

/** Klaverjassen: one deal against three basic computer players. */
async function klaverjassen() {
  const anne = await guest('Anne');
  const created = ok(await api.POST('/v1/games', {
    headers: anne.headers,
    body: {
      game: 'klaverjassen',
      options: { deals: 1, auto_deal: true, bot_delay_ms: 0, hints: true },
      bots: [1, 2, 3].map((seat) => ({ seat, level: /** @type {const} */ ('basic') })),
    },
  }));
  check('Klaverjassen: the table starts at once with three computer players', created.status === 'playing',
    created.status);
  /** @type {Set<string>} */
  const played = new Set();
  const { view, moves } = await playUntil(created.id, anne.headers, (v) => v.status === 'finished', (v) => {
    // A refused card would throw above; the first legal move is always allowed.
    const move = v.legal_moves[0];
    if (move.type === 'play') played.add(move.card);
    return move;
  });
  const kj = view.klaverjassen;
  check('Klaverjassen: the match finished after one deal', kj?.deals.length === 1, String(kj?.deals.length));
  check('Klaverjassen: Anne played eight cards', played.size === 8, `${played.size} cards in ${moves} moves`);
  const row = kj?.deals[0];
  if (row && kj) {
    check('Klaverjassen: the score sheet row adds up to the totals',
      row.score.A === kj.totals.A && row.score.B === kj.totals.B, JSON.stringify([row.score, kj.totals]));
    check('Klaverjassen: eight tricks on the row', row.tricks.length === 8, String(row.tricks.length));
    const analysis = ok(await api.GET('/v1/games/{id}/deals/{n}/analysis', {
      params: { path: { id: created.id, n: 1 } },
      headers: anne.headers,
    }));
    check('Klaverjassen: the analysis covers all 32 cards', analysis.cards.length === 32, String(analysis.cards.length));
    check('Klaverjassen: the analysis ends at the score sheet result',
      analysis.result === row.score.A - row.score.B, `${analysis.result} vs ${row.score.A - row.score.B}`);
  }
  const wrong = await api.POST('/v1/games/{id}/moves', {
    params: { path: { id: created.id } },
    headers: anne.headers,
    body: { move: { type: 'play', card: '7C' } },
  });
  check('Klaverjassen: a move on a finished match is a typed problem',
    wrong.response.status >= 400 && typeof wrong.error?.code === 'string' && typeof wrong.error?.detail === 'string',
    JSON.stringify(wrong.error));
}

/** Potverteren: one round at five seats against four basic computer players. */
async function potverteren() {
  const bob = await guest('Bob');
  const created = ok(await api.POST('/v1/games', {
    headers: bob.headers,
    body: {
      game: 'potverteren',
      options: { seats: 5, auto_deal: true, bot_delay_ms: 0 },
      bots: [1, 2, 3, 4].map((seat) => ({ seat, level: /** @type {const} */ ('basic') })),
    },
  }));
  check('Potverteren: the table starts at once with four computer players', created.status === 'playing',
    created.status);
  // `game` tells the options' shape: the type narrows to Potverteren's.
  check('Potverteren: the view shows the seats and chips asked for', created.game === 'potverteren'
    && created.options.seats === 5 && created.options.starting_chips === 100, JSON.stringify(created.options));
  const before = created.potverteren?.balances.reduce((a, b) => a + b, 0) ?? 0;
  const { view } = await playUntil(created.id, bob.headers, (v) => v.potverteren?.last_round != null, (v) => {
    // Bid the minimum in the auction; then hit while under 12, else stand.
    const total = v.potverteren?.hands[v.you ?? 0]?.total ?? 0;
    const pick = v.legal_moves.find((m) => m.type === 'bid')
      ?? v.legal_moves.find((m) => m.type === (total < 12 ? 'hit' : 'stand'))
      ?? v.legal_moves[0];
    return pick;
  });
  const pv = view.potverteren;
  const last = pv?.last_round;
  check('Potverteren: round 1 was settled', last?.round === 1, String(last?.round));
  if (pv && last) {
    const after = pv.balances.reduce((a, b) => a + b, 0);
    check('Potverteren: chips are conserved (balances and pot)', before === after + pv.pot,
      `${before} = ${after} + ${pv.pot}`);
    check('Potverteren: the changes of the round sum to what went into the pot',
      last.balance_changes.reduce((a, b) => a + b, 0) === last.pot_before - last.pot_after,
      JSON.stringify(last));
    check('Potverteren: the round has winners', last.winners.length > 0);
  }
}

try {
  await klaverjassen();
  await potverteren();
} catch (error) {
  check('the plays ran to the end', false, String(error instanceof Error ? error.stack : error));
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
