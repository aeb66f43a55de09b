// @ts-check
// The table in a real browser (Debian's Chromium through playwright-core; no
// browser is downloaded): a new visitor opens /play, starts a one-deal
// Klaverjassen table against three computer players, plays the whole deal by
// clicking highlighted cards, and sees the score sheet row and the deal's
// analysis; a card outside the highlighted ones shows the rule's refusal.
// No uncaught error or console error may occur.
//
//   node browser.mjs <base-url> [screenshot.png]
//
// <base-url> is the service root with any PATH_PREFIX, e.g.
// http://127.0.0.1:8080/cards. Prints "N passed, N failed".

import { chromium } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const base = (process.argv[2] ?? '').replace(/\/+$/, '');
const screenshot = process.argv[3] ?? join('..', '..', 'target', 'ci-artifacts', 'play.png');
if (!/^https?:\/\//.test(base)) {
  console.error('usage: node browser.mjs <base-url> [screenshot.png]');
  process.exit(2);
}

let passed = 0;
let failed = 0;
/** @param {string} name @param {boolean} ok @param {string} [detail] */
function check(name, ok, detail = '') {
  if (ok) passed += 1;
  else failed += 1;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? `: ${detail}` : ''}`);
}

mkdirSync(dirname(screenshot), { recursive: true });
const profile = mkdtempSync(join(tmpdir(), 'kaarttafel-play-'));
/** @type {string[]} */
const errors = [];
let refusals = 0;
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
  viewport: { width: 1100, height: 1000 },
  locale: 'en-GB',
});
const page = context.pages()[0] ?? (await context.newPage());
page.setDefaultTimeout(30_000);
page.on('pageerror', (error) => errors.push(String(error)));
page.on('console', (message) => {
  // The one refusal provoked below is logged by the browser as a failed load.
  if (message.type() === 'error' && !(refusals > 0 && message.text().includes('status of 422'))) errors.push(message.text());
});

try {
  const answer = await page.goto(`${base}/play`);
  check('GET /play answers 200', answer?.status() === 200, String(answer?.status()));

  await page.getByLabel('Your name').fill('Browser');
  await page.locator('#kj-deals').selectOption('1');
  await page.locator('#start-klaverjassen').click();
  await page.locator('.table.klaverjassen').waitFor();
  check('a Klaverjassen table opens', true);
  check('the address names the game', /#game=[0-9a-f-]{36}$/.test(page.url()), page.url());

  // A card outside the highlighted ones, when there is one, is refused with the rule's detail.
  let refusedShown = false;
  let clicks = 0;
  while (clicks < 40) {
    const row = page.locator('.sheet tbody tr:not(.totals)');
    if ((await row.count()) > 0) break;
    const legal = page.locator('.hand-cards button.legal');
    const trump = page.getByRole('button', { name: /^Trump: / });
    await Promise.race([
      legal.first().waitFor(), trump.first().waitFor(), row.first().waitFor(),
    ]);
    if ((await row.count()) > 0) break;
    if ((await trump.count()) > 0) {
      await trump.first().click();
    } else {
      const other = page.locator('.hand-cards button.card:not(.legal)');
      if (!refusedShown && (await other.count()) > 0) {
        const name = await other.first().getAttribute('aria-label');
        refusals += 1;
        await other.first().click();
        await page.locator('#notice.error').waitFor();
        const text = (await page.locator('#notice').textContent()) ?? '';
        check(`clicking a card not allowed (${name}) shows the refusal`, text.startsWith('Refused: '), text);
        refusedShown = true;
      }
      const card = legal.first();
      const name = (await card.getAttribute('aria-label')) ?? '';
      check(`a highlighted card has a spoken name (${name})`, /^(seven|eight|nine|ten|jack|queen|king|ace) of (clubs|diamonds|hearts|spades)$/.test(name), name);
      // Mid-deal, the hand highlighted: the picture for the README.
      if (clicks === 3) await page.screenshot({ path: screenshot.replace(/\.png$/, '-deal.png') });
      await card.click();
      clicks += 1;
      // Wait until the card left the hand, or the deal is over.
      await page.locator(`.hand-cards button[data-card="${await card.getAttribute('data-card')}"]`)
        .waitFor({ state: 'detached' }).catch(() => {});
    }
  }
  await page.locator('.sheet tbody tr:not(.totals)').first().waitFor();
  check('the deal was played by clicking eight cards', clicks === 8, `${clicks} clicks`);
  await page.locator('.analysis').waitFor();
  const analysis = (await page.locator('.analysis').textContent()) ?? '';
  check('the deal analysis is shown', analysis.includes('Deal 1: analysis'), analysis.slice(0, 120));
  const status = (await page.locator('.status').textContent()) ?? '';
  check('the table shows the match finished', status.includes('Finished'), status);
  check('no uncaught errors and no console errors', errors.length === 0, errors.join(' | '));
} catch (error) {
  check('the browser run completed', false, String(error instanceof Error ? error.stack : error));
} finally {
  await page.screenshot({ path: screenshot, fullPage: true }).catch(() => {});
  console.log(`screenshot: ${screenshot}`);
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
