// @ts-check
// Draws a game view: the seats, whose turn and the clock, then the game's
// own part (Klaverjassen's hand, trick and score sheet; Potverteren's
// auction, hands and settlement), and the caller's moves as buttons.

import { cardBack, cardFace, cardName, suitName } from './cards.js';
import { t } from './i18n.js';

/** @typedef {import('kaarttafel-api').components['schemas']} Schemas */
/** @typedef {Schemas['GameView']} GameView */
/** @typedef {Schemas['MoveSchema']} Move */
/** @typedef {Schemas['Hint']} Hint */
/** @typedef {Schemas['DealAnalysis']} DealAnalysis */
/** @typedef {Schemas['KlaverjassenView']} KlaverjassenView */
/** @typedef {Schemas['PotverterenView']} PotverterenView */
/** @typedef {Schemas['PlayedCard']} PlayedCard */

/**
 * What the table shows beside the view itself.
 * @typedef {object} Extras
 * @property {(move: Move) => void} play sends a move
 * @property {(() => void) | null} askHint asks for a hint (null without hints)
 * @property {Hint | null} hint the last hint, for the view's version
 * @property {DealAnalysis | null} analysis the last finished deal's analysis
 */

/**
 * An element with a class and children (strings become text).
 * @param {string} tag
 * @param {string} [className]
 * @param {...(Node | string)} children
 * @returns {HTMLElement}
 */
export function el(tag, className = '', ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...children);
  return node;
}

/**
 * A seat's name as this caller sees it: "Anne (you)", "computer (basic)".
 * @param {GameView} view
 * @param {number} seat
 * @returns {string}
 */
export function seatName(view, seat) {
  const s = view.seats[seat];
  if (!s) return `#${seat}`;
  const name = s.player?.name ?? t('free_seat');
  if (seat === view.you) return `${name} (${t('you')})`;
  // A computer player's name already says what it is ("Computer 1 (basic)").
  return name;
}

/**
 * A move's label, for its button.
 * @param {GameView} view
 * @param {Move} move
 * @returns {string}
 */
export function moveLabel(view, move) {
  switch (move.type) {
    case 'choose_trump': return t('move_choose_trump', { suit: suitName(move.suit) });
    case 'play': return t('move_play', { card: cardName(move.card) });
    case 'bid': return t('move_bid', { amount: move.amount });
    case 'report_revoke': return t('move_report_revoke', { who: seatName(view, move.seat) });
    default: return t(`move_${move.type}`);
  }
}

/**
 * The whole table for `view`.
 * @param {GameView} view
 * @param {Extras} extras
 * @returns {HTMLElement}
 */
export function renderTable(view, extras) {
  const root = el('div', `table ${view.game}`);
  root.append(header(view), seats(view));
  if (view.klaverjassen) root.append(...klaverjassen(view, view.klaverjassen, extras));
  if (view.potverteren) root.append(...potverteren(view, view.potverteren, extras));
  return root;
}

/**
 * Status, whose turn, the clock.
 * @param {GameView} view
 */
function header(view) {
  const box = el('section', 'status');
  box.setAttribute('aria-label', t('turn'));
  const parts = [t(view.status)];
  if (view.klaverjassen) {
    const kj = view.klaverjassen;
    if (view.game === 'klaverjassen') parts.push(t('deal_of', { n: kj.deal_number, deals: view.options.deals }));
    if (kj.phase !== 'finished') {
      const by = kj.trump && kj.trump_chosen_by !== null && kj.trump_chosen_by !== undefined
        ? ` (${t('named_by', { who: seatName(view, kj.trump_chosen_by) })})` : '';
      parts.push(`${t('trump')}: ${kj.trump ? suitName(kj.trump) + by : t('no_trump_yet')}`);
      parts.push(`${t('dealer')}: ${seatName(view, kj.dealer)}`);
    }
  }
  if (view.potverteren) parts.push(t('round', { n: view.potverteren.round }));
  box.append(el('p', 'facts', parts.join(' · ')));
  if (view.klaverjassen && view.klaverjassen.passed.length > 0) {
    const who = view.klaverjassen.passed.map((s) => seatName(view, s)).join(', ');
    box.append(el('p', 'passed', t('passed', { who })));
  }
  if (view.game === 'klaverjassen') box.append(el('p', 'rules', houseRules(view.options)));
  const awaiting = view.awaiting;
  if (awaiting) {
    const mine = view.you !== null && view.you !== undefined && awaiting.seats.includes(view.you);
    const who = awaiting.seats.map((s) => seatName(view, s)).join(', ');
    const turn = el('p', mine ? 'turn mine' : 'turn',
      mine ? t('your_turn') : t('waits_for', { who, action: t(`action_${awaiting.action}`) }));
    box.append(turn);
    if (awaiting.deadline) {
      const clock = el('p', 'clock');
      clock.dataset.deadline = awaiting.deadline;
      box.append(clock);
    }
  }
  if (view.invite_code && view.status === 'waiting') {
    box.append(el('p', 'invite', t('invite_friends', { code: view.invite_code })));
  }
  return box;
}

/**
 * A Klaverjassen table's house rules, in one line.
 * @param {Schemas['KlaverjassenOptionsView']} o
 * @returns {string}
 */
export function houseRules(o) {
  return `${t('house_rules')}: ${[
    `${t('trump_obligation')}: ${t(`rule_${o.trump_obligation}`)}`,
    `${t('undertrump')}: ${t(`rule_${o.undertrump}`)}`,
    `${t('trump_choice')}: ${t(`rule_${o.trump_choice}`)}`,
    `${t('four_jacks')}: ${t('rule_four_jacks_points', { n: o.four_jacks })}`,
  ].join(' · ')}`;
}

/**
 * The seats: who sits where, cards held, away.
 * @param {GameView} view
 */
function seats(view) {
  const list = el('ul', 'seats');
  for (const s of view.seats) {
    const item = el('li', s.seat === view.you ? 'seat you' : 'seat', seatName(view, s.seat));
    const held = view.klaverjassen?.hand_sizes[s.seat];
    if (held !== undefined) item.append(' · ', t('cards_held', { n: held }));
    if (view.potverteren) item.append(' · ', `${view.potverteren.balances[s.seat]} ${t('balances').toLowerCase()}`);
    if (view.klaverjassen?.passed.includes(s.seat)) item.append(' · ', t('seat_passed'));
    if (s.away) item.append(' · ', t('away'));
    if (view.awaiting?.seats.includes(s.seat)) item.classList.add('awaited');
    list.append(item);
  }
  return list;
}

/**
 * The moves other than playing a card (deal, trump, bids, ...), as buttons.
 * @param {GameView} view
 * @param {Extras} extras
 * @param {(move: Move) => boolean} which
 */
function moveButtons(view, extras, which) {
  const box = el('div', 'moves');
  for (const move of view.legal_moves.filter(which)) {
    const button = el('button', 'move', moveLabel(view, move));
    button.dataset.key = JSON.stringify(move);
    if (extras.hint && JSON.stringify(extras.hint.move) === JSON.stringify(move)) button.classList.add('hinted');
    button.addEventListener('click', () => extras.play(move));
    box.append(button);
  }
  if (extras.askHint && view.legal_moves.length > 0) {
    const hint = el('button', 'hint', t('hint'));
    hint.dataset.key = 'hint';
    hint.addEventListener('click', extras.askHint);
    box.append(hint);
  }
  if (extras.hint) box.append(el('p', 'hint-says', t('hint_says', { move: moveLabel(view, extras.hint.move) })));
  return box;
}

/**
 * Cards of a trick, each with who played it.
 * @param {GameView} view
 * @param {PlayedCard[]} cards
 */
function trickCards(view, cards) {
  const row = el('ol', 'trick-cards');
  for (const { seat, card } of cards) {
    row.append(el('li', '', cardFace(card), el('span', 'by', seatName(view, seat))));
  }
  return row;
}

/**
 * Klaverjassen: trick, previous trick, hand, moves, score sheet, analysis.
 * @param {GameView} view
 * @param {KlaverjassenView} kj
 * @param {Extras} extras
 * @returns {HTMLElement[]}
 */
function klaverjassen(view, kj, extras) {
  const middle = el('section', 'tricks');
  const trick = el('div', 'trick');
  if (kj.trick) {
    trick.append(el('h2', '', t('trick', { n: kj.trick.number })), trickCards(view, kj.trick.cards));
  } else {
    trick.append(el('h2', '', t('no_trick')));
  }
  middle.append(trick);
  // After a deal the previous trick is gone: the score sheet's row has it.
  const previous = kj.previous_trick ?? kj.deals.at(-1)?.tricks.at(-1) ?? null;
  if (previous) {
    middle.append(el('div', 'previous',
      el('h2', '', t('previous_trick', { who: seatName(view, previous.winner) })),
      trickCards(view, previous.cards)));
  }

  const hand = el('section', 'hand');
  hand.setAttribute('aria-label', t('your_hand'));
  if (kj.hand.length > 0) hand.append(el('h2', '', t('your_hand')));
  const legal = new Set(view.legal_moves.flatMap((m) => (m.type === 'play' ? [m.card] : [])));
  const row = el('div', 'hand-cards');
  for (const card of kj.hand) {
    const button = cardFace(card, 'button');
    button.dataset.key = `card:${card}`;
    if (legal.has(card)) button.classList.add('legal');
    else if (legal.size > 0) {
      button.classList.add('not-allowed');
      button.setAttribute('aria-description', t('not_allowed'));
    }
    if (extras.hint?.move.type === 'play' && extras.hint.move.card === card) button.classList.add('hinted');
    button.addEventListener('click', () => extras.play({ type: 'play', card }));
    row.append(button);
  }
  hand.append(row, moveButtons(view, extras, (m) => m.type !== 'play'));

  return [middle, hand, scoreSheet(view, kj), ...(extras.analysis ? [analysis(view, extras.analysis)] : [])];
}

/**
 * The score sheet: a row per finished deal, and the totals.
 * @param {GameView} view
 * @param {KlaverjassenView} kj
 */
function scoreSheet(view, kj) {
  const box = el('section', 'sheet');
  box.append(el('h2', '', t('score_sheet')));
  const table = el('table');
  // "Us" is the caller's team: seats 0 and 2 are team A.
  const weAreB = view.you === 1 || view.you === 3;
  const head = el('tr', '', el('th', '', '#'), el('th', '', t('trump')),
    el('th', '', t(weAreB ? 'team_a_them' : 'team_a')), el('th', '', t(weAreB ? 'team_b_us' : 'team_b')), el('th', ''));
  head.querySelectorAll('th').forEach((th) => th.setAttribute('scope', 'col'));
  table.append(el('thead', '', head));
  const body = el('tbody');
  for (const d of kj.deals) {
    const marks = [d.pit ? t('pit') : '', d.nat ? t('nat') : ''].filter(Boolean).join(' ');
    body.append(el('tr', '',
      el('td', '', String(d.number)),
      el('td', '', `${suitName(d.trump)} (${d.playing_team})`),
      el('td', '', String(d.score.A)),
      el('td', '', String(d.score.B)),
      el('td', '', marks)));
  }
  body.append(el('tr', 'totals', el('th', '', t('total')), el('td'),
    el('td', '', String(kj.totals.A)), el('td', '', String(kj.totals.B)), el('td')));
  table.append(body);
  box.append(table);
  if (kj.phase === 'playing') {
    box.append(el('p', 'deal-facts', t('tricks_roem', {
      a: kj.tricks_taken.A, b: kj.tricks_taken.B, ra: kj.roem.A, rb: kj.roem.B,
    })));
  }
  return box;
}

/**
 * A finished deal's analysis: par, result, and each card that cost points.
 * @param {GameView} view
 * @param {DealAnalysis} a
 */
function analysis(view, a) {
  const box = el('section', 'analysis');
  box.append(el('h2', '', t('analysis', { n: a.deal })), el('p', '', t('analysis_par', { par: a.par, result: a.result })));
  const costly = a.cards.filter((c) => c.lost > 0);
  if (costly.length === 0) box.append(el('p', '', t('analysis_clean')));
  const list = el('ul');
  for (const c of costly) {
    list.append(el('li', '', t('analysis_cost', {
      trick: c.trick, who: seatName(view, c.seat), card: cardName(c.card), lost: c.lost,
    })));
  }
  box.append(list);
  return box;
}

/**
 * Potverteren: pot, auction, every seat's cards, moves, the last settlement.
 * @param {GameView} view
 * @param {PotverterenView} pv
 * @param {Extras} extras
 * @returns {HTMLElement[]}
 */
function potverteren(view, pv, extras) {
  const pot = el('section', 'pot');
  pot.append(el('h2', '', `${t('pot')}: ${pv.pot}`),
    el('p', '', t('pot_parts', { stakes: pv.pot_parts.stakes, pothouder: pv.pot_parts.pothouder })),
    el('p', '', `${t(`phase_${pv.phase}`)}${pv.pothouder !== null && pv.pothouder !== undefined ? ` · ${t('pothouder')}: ${seatName(view, pv.pothouder)}` : ''}`));
  if (pv.auction) {
    const a = pv.auction;
    pot.append(el('p', 'auction', a.high_bid !== null && a.high_bid !== undefined && a.high_bidder !== null && a.high_bidder !== undefined
      ? t('auction', { bid: a.high_bid, who: seatName(view, a.high_bidder) })
      : t('auction_none')));
  }

  const hands = el('section', 'pot-hands');
  const list = el('ul');
  for (const h of pv.hands) {
    const cards = el('span', 'cards');
    if (h.blind_card) cards.append(cardFace(h.blind_card));
    else if (h.open_cards.length > 0 || h.stood) cards.append(cardBack());
    for (const c of h.open_cards) cards.append(cardFace(c));
    const facts = [h.total !== null && h.total !== undefined ? t('total_points', { n: h.total }) : '', h.stood ? t('stood') : '']
      .filter(Boolean).join(' · ');
    list.append(el('li', h.seat === view.you ? 'you' : '', el('span', 'who', seatName(view, h.seat)), cards, el('span', 'facts', facts)));
  }
  hands.append(list);

  const moves = el('section', 'pot-moves');
  const bid = view.legal_moves.find((m) => m.type === 'bid');
  if (bid && bid.type === 'bid') {
    const form = el('form', 'bid');
    const input = /** @type {HTMLInputElement} */ (el('input'));
    input.type = 'number';
    input.min = String(bid.amount);
    input.value = String(bid.amount);
    input.id = 'bid-amount';
    const label = el('label', '', t('amount'));
    label.setAttribute('for', 'bid-amount');
    const submit = el('button', 'move', t('bid'));
    submit.dataset.key = 'bid';
    form.append(label, input, submit);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      extras.play({ type: 'bid', amount: Number(input.value) });
    });
    moves.append(form);
  }
  moves.append(moveButtons(view, extras, (m) => m.type !== 'bid'));

  const out = [pot, hands, moves];
  if (pv.last_round) out.push(settlement(view, pv.last_round));
  return out;
}

/**
 * A change of balance, signed: "change +3".
 * @param {number} change
 */
function signed(change) {
  return `${t('change')} ${change > 0 ? '+' : ''}${change}`;
}

/**
 * The last settled round: revealed hands, winners, the pot and each seat's change.
 * @param {GameView} view
 * @param {Schemas['LastRound']} r
 */
function settlement(view, r) {
  const box = el('section', 'settlement');
  box.append(el('h2', '', t('last_round', { n: r.round })),
    el('p', '', t('winners', { who: r.winners.map((s) => seatName(view, s)).join(', ') })),
    el('p', '', t('pot_change', { before: r.pot_before, after: r.pot_after })));
  const list = el('ul');
  for (const h of r.hands) {
    const cards = el('span', 'cards');
    for (const c of h.cards) cards.append(cardFace(c));
    const change = r.balance_changes[h.seat] ?? 0;
    list.append(el('li', '', el('span', 'who', seatName(view, h.seat)), cards,
      el('span', 'facts', `${t('total_points', { n: h.total })} · ${signed(change)}`)));
  }
  // The pothouder (by auction) held no cards, and its chips changed too.
  if (!r.hands.some((h) => h.seat === r.pothouder)) {
    list.append(el('li', 'pothouder', el('span', 'who', seatName(view, r.pothouder)),
      el('span', 'facts', `${t('pothouder')} · ${signed(r.balance_changes[r.pothouder] ?? 0)}`)));
  }
  box.append(list);
  return box;
}
