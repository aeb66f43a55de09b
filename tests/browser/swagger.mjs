// Drives the service's Swagger UI in a real browser (Debian's Chromium via
// playwright-core; no browser is downloaded): the page must render the
// operations from the live /openapi.json, and "Try it out" on
// POST /v1/players must reach the service and show its 201 answer.
//
//   node swagger.mjs <base-url> [label]
//
// <base-url> is the service root including any PATH_PREFIX, e.g.
// http://127.0.0.1:8080 or http://127.0.0.1:8080/cards. The label names the
// screenshot (default: "root", or the prefix without slashes).
import { chromium } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const base = (process.argv[2] || '').replace(/\/+$/, '');
if (!/^https?:\/\//.test(base)) {
  console.error('usage: node swagger.mjs <base-url> [label]');
  process.exit(2);
}
const prefix = new URL(base).pathname.replace(/\/+$/, '');
const label = process.argv[3] || (prefix ? prefix.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') : 'root');
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const artifacts = join(repoRoot, 'target', 'ci-artifacts');
const screenshot = join(artifacts, `swagger-${label}.png`);
const TIMEOUT = 30_000;

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  if (ok) {
    passed += 1;
    console.log(`ok   ${name}`);
  } else {
    failed += 1;
    console.log(`FAIL ${name}${detail ? `: ${detail}` : ''}`);
  }
  return ok;
}

const profile = mkdtempSync(join(tmpdir(), 'kaarttafel-chromium-'));
let context;
const pageErrors = [];
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(TIMEOUT);
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') console.log(`     console error: ${msg.text()}`);
  });

  // 1. The page itself.
  const docsUrl = `${base}/docs/`;
  const nav = await page.goto(docsUrl, { waitUntil: 'load' });
  check(`GET ${docsUrl} answers 200`, nav && nav.status() === 200, `status ${nav && nav.status()}`);

  // 2. The operations rendered from the live OpenAPI document. The path is
  // shown as written in the document; with a prefix the document's server
  // carries it, so match the path's end.
  const playersOp = page
    .locator('.opblock.opblock-post')
    .filter({ has: page.locator('.opblock-summary-path[data-path$="/v1/players"]') })
    .first();
  let rendered = true;
  try {
    await playersOp.waitFor({ state: 'visible' });
  } catch (e) {
    rendered = false;
  }
  check('operation block POST /v1/players is visible', rendered);
  const operations = await page.locator('.opblock').count();
  check('several operations are listed', operations >= 5, `${operations} operation blocks`);
  const title = (await page.locator('.info .title').first().textContent().catch(() => '')) || '';
  console.log(`     title: ${title.trim()}; ${operations} operation blocks`);
  if (!rendered) throw new Error('Swagger UI did not render POST /v1/players');

  // 3. Expand it, "Try it out", fill the body, "Execute".
  await playersOp.locator('.opblock-summary').first().click();
  const tryOut = playersOp.locator('button.try-out__btn');
  await tryOut.waitFor({ state: 'visible' });
  await tryOut.click();
  const bodyEditor = playersOp.locator('textarea.body-param__text');
  await bodyEditor.waitFor({ state: 'visible' });
  await bodyEditor.fill('{"name":"Browser"}');
  check('request body is editable and holds {"name":"Browser"}',
    (await bodyEditor.inputValue()) === '{"name":"Browser"}');

  const answered = page.waitForResponse(
    (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === `${prefix}/v1/players`,
  );
  await playersOp.locator('button.execute').click();
  const wire = await answered;
  console.log(`     browser sent POST ${wire.url()} -> ${wire.status()}`);

  // 4. The live response as the page shows it.
  const live = playersOp.locator('.live-responses-table .response');
  await live.first().waitFor({ state: 'visible' });
  const shownStatus = ((await live.first().locator('.response-col_status').textContent()) || '').trim();
  check('response status shown in the page is 201', shownStatus === '201', `shown "${shownStatus}"`);

  const requestUrl = ((await playersOp.locator('.request-url pre').first().textContent().catch(() => '')) || '').trim();
  check(`request URL shown is ${base}/v1/players`, requestUrl === `${base}/v1/players`, `shown "${requestUrl}"`);

  const bodyText = ((await live.first().locator('.response-col_description pre').first().textContent()) || '').trim();
  let body = null;
  try {
    body = JSON.parse(bodyText);
  } catch (e) {
    /* reported below */
  }
  check('response body shown is JSON with a token',
    body !== null && typeof body.token === 'string' && body.token.length > 20,
    bodyText.slice(0, 200));
  check('response body names the player "Browser" and has an id',
    body !== null && body.name === 'Browser' && typeof body.id === 'string' && body.id.length > 0,
    bodyText.slice(0, 200));
  if (body) console.log(`     player ${body.id}, token ${String(body.token).slice(0, 16)}…, expires_at ${body.expires_at}`);

  check('no uncaught errors in the page', pageErrors.length === 0, pageErrors.join(' | '));

  // 5. Evidence.
  mkdirSync(artifacts, { recursive: true });
  await live.first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`screenshot: ${screenshot}`);
} catch (err) {
  check('browser run completed', false, String(err && err.stack ? err.stack : err));
  if (context) {
    try {
      mkdirSync(artifacts, { recursive: true });
      const page = context.pages()[0];
      if (page) {
        await page.screenshot({ path: screenshot, fullPage: true });
        console.log(`screenshot (at failure): ${screenshot}`);
      }
    } catch (e) {
      /* nothing more to show */
    }
  }
} finally {
  if (context) await context.close().catch(() => {});
  rmSync(profile, { recursive: true, force: true });
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
