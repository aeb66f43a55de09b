// @ts-check
// The table in a real browser (Debian's Chromium through playwright-core; no
// browser is downloaded), each scenario in fresh browser contexts (a new
// visitor, nothing in localStorage):
//
// - klaverjassen: a visitor opens /play, chooses house rules other than the
//   defaults (Amsterdam, undertrumping required, a pass round, four jacks
//   100), starts a one-deal table against three computer players, checks the
//   created table's options through the API, passes on the trump choice and
//   sees the pass, plays the whole deal by clicking highlighted cards, and
//   sees the score sheet row and the deal's analysis; a card outside the
//   highlighted ones shows the rule's refusal.
// - potverteren: a visitor starts a table of 6 seats against 5 computer
//   players and plays rounds on the page until it has bid in an auction, asked
//   a card in its turn and seen that round settled (winners, each seat's
//   change; the chips on the table add up to what the seats started with).
// - invite: one visitor starts a table with a seat kept for a friend, a second
//   browser context joins with the invite code shown on the first's page, and
//   both play the deal, each seeing the other's cards live.
//
// Every page state a player meets (the start, a table mid-deal, a finished
// deal with its analysis, a Potverteren auction, turns and settlement) is
// checked with axe-core: no serious or critical violation. No uncaught error
// or console error may occur.
//
//   node browser.mjs <base-url> [screenshot.png] [scenario ...]
//
// <base-url> is the service root with any PATH_PREFIX, e.g.
// http://127.0.0.1:8080/cards. Screenshots are written beside
// screenshot.png, named after it (play.png, play-deal.png,
// play-potverteren.png, play-invite.png). Prints "N passed, N failed".

import { chromium } from 'playwright-core';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const base = (process.argv[2] ?? '').replace(/\/+$/, '');
const screenshot = process.argv[3] ?? join('..', '..', 'target', 'ci-artifacts', 'play.png');
const SCENARIOS = ['klaverjassen', 'potverteren', 'invite'];
const wanted = process.argv.length > 4 ? process.argv.slice(4) : SCENARIOS;
if (!/^https?:\/\//.test(base) || wanted.some((s) => !SCENARIOS.includes(s))) {
  console.error(`usage: node browser.mjs <base-url> [screenshot.png] [${SCENARIOS.join('|')} ...]`);
  process.exit(2);
}
/** @param {string} suffix */
const picture = (suffix) => screenshot.replace(/\.png$/, `${suffix}.png`);

let passed = 0;
let failed = 0;
/** @param {string} name @param {boolean} ok @param {string} [detail] */
function check(name, ok, detail = '') {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? `: ${detail}` : ''}`);
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** @typedef {import('playwright-core').Page} Page */
/** @typedef {import('playwright-core').Locator} Locator */

mkdirSync(dirname(screenshot), { recursive: true });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});

/**
 * A new visitor: its own context (no localStorage), its page, and the
 * errors it meets. A console error counts unless `expected` says it is the
 * refusal a test provoked on purpose.
 * @param {string} label
 */
async function visitor(label) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 1000 }, locale: 'en-GB' });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  /** @type {string[]} */
  const errors = [];
  const v = { label, context, page, errors, refusals: 0 };
  page.on('pageerror', (error) => v.errors.push(String(error)));
  page.on('console', (message) => {
    // A refusal provoked on purpose is logged by the browser as a failed load.
    if (message.type() === 'error' && !(v.refusals > 0 && message.text().includes('status of 422'))) {
      v.errors.push(message.text());
    }
  });
  return v;
}

/**
 * axe-core on the page as it is now: no serious or critical violation.
 * (Evaluated through the DevTools protocol, so the page's Content-Security-
 * Policy, which allows only its own scripts, stays in force.)
 * @param {Page} page
 * @param {string} state
 */
async function accessible(page, state) {
  await page.evaluate(`globalThis.axe || (() => { ${axeSource}\n })()`);
  /** @type {{ id: string, impact: string | null, help: string, nodes: { target: unknown[] }[] }[]} */
  const violations = await page.evaluate(async () => {
    const result = await /** @type {any} */ (globalThis).axe.run(document, { resultTypes: ['violations'] });
    return result.violations;
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  check(`axe-core: no serious or critical violation on ${state}`, bad.length === 0,
    bad.map((v) => `${v.id} (${v.impact}: ${v.help}) at ${v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)).join(' ')}`).join('; '));
}

/**
 * Clicks `target`, then waits until the page drew the answer (the clicked
 * element is replaced) or showed a refusal.
 * @param {Page} page
 * @param {Locator} target
 */
async function clickAndWait(page, target) {
  for (let attempt = 1; ; attempt += 1) {
    // The page may redraw between finding the element and clicking it.
    const handle = await target.elementHandle();
    try {
      await handle.click({ timeout: 5_000 });
    } catch (error) {
      if (attempt < 3 && !(await handle.evaluate((node) => node.isConnected))) continue;
      throw error;
    }
    await Promise.race([
      page.waitForFunction((node) => !node.isConnected, handle),
      page.locator('#notice.error').waitFor(),
    ]);
    return;
  }
}

/**
 * The view of the game the page shows, read through the API with the
 * page's own guest token (as any client would).
 * @param {Page} page
 * @returns {Promise<any>}
 */
function viewOf(page) {
  return page.evaluate(async () => {
    const player = JSON.parse(localStorage.getItem('kaarttafel.player') ?? 'null');
    const id = new URLSearchParams(location.hash.slice(1)).get('game');
    const answer = await fetch(`v1/games/${id}`, { headers: { Authorization: `Bearer ${player.token}` } });
    return answer.json();
  });
}

/**
 * Opens /play and enters `name`.
 * @param {Page} page
 * @param {string} name
 */
async function start(page, name) {
  const answer = await page.goto(`${base}/play`);
  check('GET /play answers 200', answer?.status() === 200, String(answer?.status()));
  await page.getByLabel('Your name').fill(name);
}

/**
 * Plays the page's Klaverjassen deal to its end: names trump when asked
 * (first passing once, when `pass` is offered and `passOnce`), clicks a
 * highlighted card when it is this seat's turn (first, once, a card that is
 * not, when `refuseOnce`). Returns what it did.
 * @param {Awaited<ReturnType<typeof visitor>>} v
 * @param {{ passOnce?: boolean, refuseOnce?: boolean, other?: string, pictureAt?: number }} how
 */
async function playDeal(v, how) {
  const { page } = v;
  const done = { clicks: 0, passed: false, sawOther: false };
  const row = page.locator('.sheet tbody tr:not(.totals)');
  const legal = page.locator('.hand-cards button.legal');
  const trump = page.getByRole('button', { name: /^Trump: / });
  const pass = page.locator('.moves button[data-key=\'{"type":"pass"}\']');
  let refused = false;
  for (let steps = 0; steps < 60; steps += 1) {
    if (how.other && !done.sawOther) {
      done.sawOther = (await page.locator('.trick-cards .by', { hasText: how.other }).count()) > 0;
    }
    await Promise.race([legal.first().waitFor(), trump.first().waitFor(), row.first().waitFor()]);
    if ((await row.count()) > 0) break;
    if ((await trump.count()) > 0) {
      if (how.passOnce && !done.passed && (await pass.count()) > 0) {
        await accessible(page, `${v.label}: the trump choice with a pass`);
        await clickAndWait(page, pass);
        done.passed = true;
        const line = (await page.locator('.status .passed').textContent().catch(() => '')) ?? '';
        check('the page says who passed', line.includes(`Passed: ${v.label} (you)`), line);
        continue;
      }
      await clickAndWait(page, trump.first());
      continue;
    }
    const other = page.locator('.hand-cards button.card:not(.legal)');
    if (how.refuseOnce && !refused && (await other.count()) > 0) {
      const name = await other.first().locator('.name').textContent();
      v.refusals += 1;
      await clickAndWait(page, other.first());
      const text = (await page.locator('#notice').textContent()) ?? '';
      check(`clicking a card not allowed (${name}) shows the refusal`, text.startsWith('Refused: '), text);
      refused = true;
    }
    const card = legal.first();
    const name = (await card.locator('.name').textContent()) ?? '';
    if (done.clicks === 0) {
      check(`${v.label}: a highlighted card has a spoken name (${name})`,
        /^(seven|eight|nine|ten|jack|queen|king|ace) of (clubs|diamonds|hearts|spades)$/.test(name), name);
    }
    if (done.clicks === how.pictureAt) {
      // Mid-deal, the hand highlighted: the picture for the README.
      await page.screenshot({ path: picture('-deal') });
      await accessible(page, `${v.label}: a table mid-deal`);
    }
    await clickAndWait(page, card);
    done.clicks += 1;
  }
  await row.first().waitFor();
  if (how.other && !done.sawOther) {
    done.sawOther = (await page.locator('.trick-cards .by', { hasText: how.other }).count()) > 0;
  }
  return done;
}

/** Klaverjassen against the computer, with house rules other than the defaults. */
async function klaverjassen() {
  const v = await visitor('Browser');
  const { page } = v;
  try {
    await start(page, v.label);
    await accessible(page, 'the start page');
    await page.locator('#kj-deals').selectOption('1');
    await page.getByLabel("Trump on your partner's trick").selectOption('amsterdam');
    await page.getByLabel('Undertrumping').selectOption('required');
    await page.getByLabel('Trump named by').selectOption('pass_round');
    await page.getByLabel('Four jacks').selectOption('100');
    await page.locator('#start-klaverjassen').click();
    await page.locator('.table.klaverjassen').waitFor();
    check('a Klaverjassen table opens', true);
    check('the address names the game', /#game=[0-9a-f-]{36}$/.test(page.url()), page.url());

    const options = (await viewOf(page)).options;
    check('the table was created with the house rules chosen',
      options.trump_obligation === 'amsterdam' && options.undertrump === 'required'
        && options.trump_choice === 'pass_round' && options.four_jacks === 100,
      JSON.stringify(options));
    const rules = (await page.locator('.status .rules').textContent()) ?? '';
    check('the table shows its house rules',
      ['need not (Amsterdam)', 'Undertrumping: required', 'each in turn, or pass', 'Four jacks: 100 roem']
        .every((part) => rules.includes(part)), rules);

    const done = await playDeal(v, { passOnce: true, refuseOnce: true, pictureAt: 3 });
    check('the pass was offered to the voorhand, and played on the page', done.passed);
    check('the deal was played by clicking eight cards', done.clicks === 8, `${done.clicks} clicks`);
    await page.locator('.analysis').waitFor();
    const analysis = (await page.locator('.analysis').textContent()) ?? '';
    check('the deal analysis is shown', analysis.includes('Deal 1: analysis'), analysis.slice(0, 120));
    const status = (await page.locator('.status').textContent()) ?? '';
    check('the table shows the match finished', status.includes('Finished'), status);
    await accessible(page, 'a finished deal with its analysis');
  } catch (error) {
    check('the Klaverjassen run completed', false, String(error instanceof Error ? error.stack : error));
  } finally {
    await page.screenshot({ path: screenshot, fullPage: true }).catch(() => {});
    check('Klaverjassen: no uncaught errors and no console errors', v.errors.length === 0, v.errors.join(' | '));
    await v.context.close();
  }
}

/** Potverteren against five computer players: a bid, a card asked, a round settled. */
async function potverteren() {
  const seats = 6;
  const v = await visitor('Browser');
  const { page } = v;
  try {
    await start(page, v.label);
    await page.locator('#pot-seats').selectOption(String(seats));
    await page.locator('#start-potverteren').click();
    await page.locator('.table.potverteren').waitFor();
    await page.locator('.pot').waitFor();
    check(`a Potverteren table of ${seats} seats opens, every seat taken`,
      (await page.locator('.seats li').count()) === seats);

    const pot = page.locator('.pot-moves');
    const bidInput = page.locator('#bid-amount');
    const passButton = pot.locator('button[data-key=\'{"type":"pass"}\']');
    const hit = pot.locator('button[data-key=\'{"type":"hit"}\']');
    const stand = pot.locator('button[data-key=\'{"type":"stand"}\']');
    const deal = pot.locator('button[data-key=\'{"type":"deal"}\']');
    const mine = page.locator('.pot-hands li.you .card');
    let bid = false;
    let hitRound = 0;
    for (let steps = 0; steps < 100; steps += 1) {
      const settled = page.locator('.settlement h2', { hasText: `Round ${hitRound} settled` });
      await Promise.race([bidInput.waitFor(), passButton.waitFor(), hit.waitFor(), stand.waitFor(), deal.waitFor(),
        ...(hitRound ? [settled.waitFor()] : [])]);
      if (hitRound && (await settled.count()) > 0) break;
      if ((await bidInput.count()) > 0 && !bid) {
        await accessible(page, 'a Potverteren auction');
        await clickAndWait(page, pot.locator('form.bid button'));
        bid = true;
        const line = (await page.locator('.auction').textContent()) ?? '';
        check('our bid is in the auction', /highest bid \d+ by /.test(line), line);
      } else if ((await passButton.count()) > 0) {
        await clickAndWait(page, passButton);
      } else if ((await deal.count()) > 0) {
        await clickAndWait(page, deal);
      } else if ((await hit.count()) > 0 && !hitRound) {
        const round = Number((/Round (\d+)/.exec((await page.locator('.status .facts').textContent()) ?? '') ?? [])[1]);
        const before = await mine.count();
        await accessible(page, 'a Potverteren turn');
        await clickAndWait(page, hit);
        hitRound = round;
        const after = await mine.count();
        check('a card asked comes face up into our hand', after === before + 1, `${before} → ${after}`);
      } else if ((await stand.count()) > 0) {
        await clickAndWait(page, stand);
      }
    }
    check('we bid in an auction on the page', bid);
    check('a round in which we asked a card was settled', hitRound > 0
      && (await page.locator('.settlement h2', { hasText: `Round ${hitRound} settled` }).count()) > 0, `round ${hitRound}`);
    const settlement = page.locator('.settlement');
    await settlement.waitFor();
    const text = (await settlement.textContent()) ?? '';
    check('the settlement names the winners', /Won by /.test(text), text.slice(0, 160));
    const changes = [...text.matchAll(/change ([+-]?\d+)/g)].map((m) => Number(m[1]));
    check('the settlement shows every seat with its change', (await settlement.locator('li').count()) === seats
      && changes.length === seats, text.slice(0, 400));
    const [, before, after] = (/Pot (\d+) → (\d+)/.exec(text) ?? []).map(Number);
    check("the seats' changes and the pot's add up to nothing",
      changes.reduce((a, b) => a + b, 0) + (after - before) === 0, `${changes.join(' ')}; pot ${before} → ${after}`);
    // The chips are conserved: the balances and the pot add up to the start.
    const view = await viewOf(page);
    const total = view.potverteren.balances.reduce((/** @type {number} */ a, /** @type {number} */ b) => a + b, 0)
      + view.potverteren.pot;
    check('the chips on the table add up to what the seats started with', total === seats * view.options.starting_chips,
      `${total} ≠ ${seats} × ${view.options.starting_chips}`);
    await accessible(page, 'a settled Potverteren round');
  } catch (error) {
    check('the Potverteren run completed', false, String(error instanceof Error ? error.stack : error));
  } finally {
    await page.screenshot({ path: picture('-potverteren'), fullPage: true }).catch(() => {});
    check('Potverteren: no uncaught errors and no console errors', v.errors.length === 0, v.errors.join(' | '));
    await v.context.close();
  }
}

/** A table among friends: the host's page shows a code, a second browser joins with it, both play. */
async function invite() {
  const host = await visitor('Host');
  const friend = await visitor('Friend');
  try {
    await start(host.page, host.label);
    await host.page.locator('#kj-deals').selectOption('1');
    await host.page.locator('#kj-friends').selectOption('1');
    await host.page.locator('#start-klaverjassen').click();
    const shown = (await host.page.locator('.status .invite').textContent()) ?? '';
    const code = (/code (\S+)$/.exec(shown) ?? [])[1] ?? '';
    check('the host sees the invite code of the table waiting for a friend', code.length > 0, shown);
    await accessible(host.page, 'a table waiting for a friend');

    await start(friend.page, friend.label);
    await friend.page.getByLabel('Invite code').fill(code.toLowerCase());
    await friend.page.locator('#join').click();
    await friend.page.locator('.table.klaverjassen').waitFor();
    check('the friend joins by the invite code', true);
    await host.page.locator('.seats li', { hasText: 'Friend' }).waitFor();
    check("the friend's arrival shows live on the host's page", true);

    const [h, f] = await Promise.all([
      playDeal(host, { other: 'Friend' }),
      playDeal(friend, { other: 'Host' }),
    ]);
    check('both played the deal on their pages', h.clicks === 8 && f.clicks === 8, `${h.clicks}, ${f.clicks} clicks`);
    check("each saw the other's cards live", h.sawOther && f.sawOther, `host ${h.sawOther}, friend ${f.sawOther}`);
    const rows = await Promise.all([host, friend].map((v) => v.page.locator('.sheet tbody tr:not(.totals)').count()));
    check('both see the score sheet row', rows[0] === 1 && rows[1] === 1, rows.join(', '));
    await Promise.all([host, friend].map((v) => v.page.locator('.analysis').waitFor()));
    check("both see the deal's analysis", true);
  } catch (error) {
    check('the invite run completed', false, String(error instanceof Error ? error.stack : error));
  } finally {
    await friend.page.screenshot({ path: picture('-invite'), fullPage: true }).catch(() => {});
    for (const v of [host, friend]) {
      check(`invite (${v.label}): no uncaught errors and no console errors`, v.errors.length === 0, v.errors.join(' | '));
      await v.context.close();
    }
  }
}

const run = { klaverjassen, potverteren, invite };
try {
  for (const name of wanted) {
    console.log(`-- ${name} at ${base}`);
    await run[/** @type {keyof typeof run} */ (name)]();
  }
} finally {
  await browser.close();
}
console.log(`screenshots: ${dirname(screenshot)}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
