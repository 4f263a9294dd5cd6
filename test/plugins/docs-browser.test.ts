// Swagger UI end to end in headless Chromium (Debian's, never a downloaded one): authorize with a
// token, create a plant with "Try it out", list it; no request leaves 127.0.0.1, no CSP
// violation, no console error, and every API answer the browser gets follows openapi.yaml.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page, type Response } from 'playwright-core';
import t from 'tap';
import { bearer, buildTestApp, inject, tempDir, tokenFor } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';
import { checkResponse } from '../helpers/contract.js';
import { projectRoot } from '../helpers/paths.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const WAIT = { timeout: 30_000 };

if (!existsSync(CHROMIUM) && process.env.CI !== 'true') {
  t.plan(0, `no Chromium at ${CHROMIUM}; install it with "apt-get install chromium" (with CI=true this fails instead)`);
} else {
  t.test('Swagger UI: authorize, create a plant with Try it out, list it', async (t) => {
    t.ok(existsSync(CHROMIUM), `Chromium is at ${CHROMIUM} (CI=true needs it)`);
    const app = await buildTestApp(t);
    const base = await listen(app);
    const token = await tokenFor(app, 'alice');

    const context = await chromium.launchPersistentContext(join(tempDir(t), 'profile'), { executablePath: CHROMIUM, args: ARGS, headless: true });
    t.teardown(() => context.close());
    const page = context.pages()[0] ?? (await context.newPage());
    const seen = watch(page, base);

    const documentResponse = await page.goto(`${base}/docs`, WAIT);
    const policy = documentResponse?.headers()['content-security-policy'] ?? '';
    t.match(policy, /script-src 'self'(;|$)/, "the page runs under helmet's policy: this origin's scripts only");
    t.notMatch(policy, /https:|swagger\.io/, 'no remote sources allowed');

    await page.locator('button.authorize').first().click(WAIT);
    await page.locator('#auth-bearer-value').fill(token);
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('.auth-btn-wrapper button.btn-done').click();
    t.equal(await page.locator('.scheme-container button.authorize.locked').count(), 1, 'the Authorize button shows a closed lock');

    const create = page.locator('#operations-plants-addPlant');
    await create.locator('.opblock-summary').click();
    await create.locator('textarea.body-param__text').fill('{\n  "id": 9223372036854775807,\n  "name": "Browser fern",\n  "tag": "e2e"\n}');
    await create.locator('button.execute').click();
    t.equal(await liveStatus(create), '200', 'POST /plants answered 200 in the response panel');
    t.match(await liveBody(create), /Browser fern/);

    const list = page.locator('#operations-plants-listPlants');
    await list.locator('.opblock-summary').click();
    await list.locator('button.execute').click();
    t.equal(await liveStatus(list), '200', 'GET /plants answered 200 in the response panel');
    const listed = await liveBody(list);
    t.match(listed, /"name": "Browser fern"/, 'the new plant is in the listed body');
    t.match(listed, /"tag": "e2e"/);

    const artifacts = join(projectRoot, 'test-artifacts');
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, 'swagger-ui.png'), fullPage: true });
    await list.locator('.live-responses-table').first().screenshot({ path: join(artifacts, 'swagger-ui-list-response.png') });

    const sent = seen.requests.filter((request) => request.method === 'POST');
    t.same(sent.map((request) => `${request.method} ${request.url} ${request.authorization}`), [`POST ${base}/plants Bearer ${token}`], 'one create, with the token');
    const exact = await inject(t, app, { method: 'DELETE', url: '/plants/9223372036854775807', headers: bearer(token) });
    t.equal(exact.status, 204, 'the id typed in the browser was stored exactly');

    await seen.settled();
    const offsite = seen.requests.map((request) => request.url).filter((url) => !url.startsWith(`${base}/`) && !url.startsWith('data:'));
    t.same(offsite, [], `every request went to ${base}`);
    t.ok(seen.requests.length > 5, `${seen.requests.length} requests recorded`);
    t.same(seen.problems, [], 'no CSP violation, console error, page error or failed request');
    t.same(seen.contract, [], 'every API answer the browser got follows openapi.yaml');
  });
}

/** Records every request, problems the page reports, and checks each answer against the contract. */
function watch(page: Page, base: string) {
  const requests: { method: string; url: string; authorization: string | undefined }[] = [];
  const problems: string[] = [];
  const contract: string[] = [];
  const checks: Promise<void>[] = [];
  page.on('request', (request) => requests.push({ method: request.method(), url: request.url(), authorization: request.headers().authorization }));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => checks.push(checkAnswer(response, base, contract)));
  // Chromium also reports CSP violations as console errors; the event makes sure none is missed.
  void page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
  });
  return { requests, problems, contract, settled: () => Promise.all(checks) };
}

async function checkAnswer(response: Response, base: string, contract: string[]): Promise<void> {
  const url = response.url();
  if (!url.startsWith(base) || (response.status() >= 300 && response.status() < 400)) return;
  const path = url.slice(base.length);
  const method = response.request().method();
  const problems = checkResponse(method, path, { status: response.status(), headers: response.headers(), body: await response.text() });
  contract.push(...problems.map((problem) => `${method} ${path}: ${problem}`));
}

async function liveStatus(operation: ReturnType<Page['locator']>): Promise<string> {
  const status = operation.locator('.live-responses-table tbody .response-col_status').first();
  await status.waitFor(WAIT);
  return (await status.innerText()).trim();
}

async function liveBody(operation: ReturnType<Page['locator']>): Promise<string> {
  return operation.locator('.live-responses-table tbody .response-col_description pre').first().innerText();
}
