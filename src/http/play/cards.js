// @ts-check
// Cards as the API writes them (`10H`, `JS`: rank then suit), named in the
// page's language and drawn as markup.

import { lang } from './i18n.js';

/** @typedef {import('kaarttafel-api').components['schemas']['Card']} Card */
/** @typedef {import('kaarttafel-api').components['schemas']['Suit']} Suit */

/** @type {Record<string, { en: string, nl: string, symbol: string, red: boolean }>} */
export const SUITS = {
  C: { en: 'clubs', nl: 'klaveren', symbol: '♣', red: false },
  D: { en: 'diamonds', nl: 'ruiten', symbol: '♦', red: true },
  H: { en: 'hearts', nl: 'harten', symbol: '♥', red: true },
  S: { en: 'spades', nl: 'schoppen', symbol: '♠', red: false },
};

/** @type {Record<string, { en: string, nl: string }>} */
const RANKS = {
  2: { en: 'two', nl: 'twee' },
  3: { en: 'three', nl: 'drie' },
  4: { en: 'four', nl: 'vier' },
  5: { en: 'five', nl: 'vijf' },
  6: { en: 'six', nl: 'zes' },
  7: { en: 'seven', nl: 'zeven' },
  8: { en: 'eight', nl: 'acht' },
  9: { en: 'nine', nl: 'negen' },
  10: { en: 'ten', nl: 'tien' },
  J: { en: 'jack', nl: 'boer' },
  Q: { en: 'queen', nl: 'vrouw' },
  K: { en: 'king', nl: 'heer' },
  A: { en: 'ace', nl: 'aas' },
};

/**
 * A card's rank and suit codes.
 * @param {Card} card
 * @returns {{ rank: string, suit: string }}
 */
export function parts(card) {
  return { rank: card.slice(0, -1), suit: card.slice(-1) };
}

/**
 * A suit's name: "hearts", or "harten" in Dutch.
 * @param {string} suit
 * @returns {string}
 */
export function suitName(suit) {
  const s = SUITS[suit];
  return s ? s[lang] : suit;
}

/**
 * A card's name: "jack of hearts", or "harten boer" in Dutch.
 * @param {Card} card
 * @returns {string}
 */
export function cardName(card) {
  const { rank, suit } = parts(card);
  const r = RANKS[rank]?.[lang] ?? rank;
  return lang === 'nl' ? `${suitName(suit)} ${r}` : `${r} of ${suitName(suit)}`;
}

/**
 * A card's face as markup: rank and suit symbol, red or black. `tag` is
 * `button` for a card that can be played, else `span`.
 * @param {Card} card
 * @param {'button' | 'span'} [tag]
 * @returns {HTMLElement}
 */
export function cardFace(card, tag = 'span') {
  const { rank, suit } = parts(card);
  const face = document.createElement(tag);
  face.className = `card ${SUITS[suit]?.red ? 'red' : 'black'}`;
  face.dataset.card = card;
  // A picture is named by its label; a button by its text, which holds the
  // name for screen readers, the face beside it being hidden from them (a
  // label other than the visible text would not match what voice control
  // users read).
  if (tag === 'span') {
    face.setAttribute('role', 'img');
    face.setAttribute('aria-label', cardName(card));
  }
  const corner = document.createElement('span');
  corner.className = 'corner';
  corner.setAttribute('aria-hidden', 'true');
  corner.textContent = `${rank}${SUITS[suit]?.symbol ?? suit}`;
  const pip = document.createElement('span');
  pip.className = 'pip';
  pip.setAttribute('aria-hidden', 'true');
  pip.textContent = SUITS[suit]?.symbol ?? suit;
  face.append(corner, pip);
  if (tag === 'button') {
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = cardName(card);
    face.append(name);
  }
  return face;
}

/**
 * A card seen from the back (a hidden card).
 * @returns {HTMLElement}
 */
export function cardBack() {
  const back = document.createElement('span');
  back.className = 'card back';
  back.setAttribute('role', 'img');
  back.setAttribute('aria-label', lang === 'nl' ? 'dichte kaart' : 'face-down card');
  return back;
}
