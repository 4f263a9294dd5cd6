// Swagger UI end to end in headless Chromium: authorize with a token, create a plant with
// "Try it out", list it, list it again as the listing with ids; no request leaves 127.0.0.1, no CSP violation, no console error,
// and every API answer the browser gets follows openapi.yaml.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import t from 'tap';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';
import { liveStatus, offsite, openPage, skipReason, WAIT, watch } from '../helpers/chromium.js';
import { projectRoot } from '../helpers/paths.js';
import { DOCS_TITLE } from '../../src/plugins/docs.js';

const LISTING = 'application/vnd.plant-store.listing+json';

const skip = skipReason();
if (skip !== undefined) {
  t.plan(0, skip);
} else {
  t.test('Swagger UI: authorize, create a plant with Try it out, list it', async (t) => {
    const app = await buildTestApp(t);
    const base = await listen(app);
    const token = await tokenFor(app, 'alice');
    const page = await openPage(t);
    const seen = await watch(page, base);

    const documentResponse = await page.goto(`${base}/docs`, WAIT);
    const policy = documentResponse?.headers()['content-security-policy'] ?? '';
    t.match(policy, /script-src 'self';/, "the page runs under helmet's policy: this origin's scripts only");
    t.notMatch(policy, /https:|swagger\.io/, 'no remote sources allowed');

    t.equal(await page.title(), DOCS_TITLE, 'the tab names Plant Store, not Swagger UI');
    const logo = page.locator('.topbar-wrapper img').first();
    await logo.waitFor(WAIT);
    t.match(await logo.getAttribute('src'), /^data:image\/svg\+xml;base64,/, "the top bar shows Plant Store's logo");
    t.match(Buffer.from((await logo.getAttribute('src'))!.split(',')[1]!, 'base64').toString(), />Plant Store</);
    t.same(
      await logo.evaluate((img) => [...img.parentElement!.children].map((child) => child.tagName)),
      ['IMG'],
      "the logo link holds only that image, not Swagger's",
    );

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
    await list
      .locator('.live-responses-table')
      .first()
      .screenshot({ path: join(artifacts, 'swagger-ui-list-response.png') });

    const posts = seen.requests.filter((request) => request.method === 'POST');
    t.same(
      posts.map((request) => `${request.url} ${request.authorization}`),
      [`${base}/plants Bearer ${token}`],
      'one create, with the token',
    );
    const exact = await inject(t, app, { method: 'DELETE', url: '/plants/9223372036854775807', headers: bearer(token) });
    t.equal(exact.status, 204, 'the id typed in the browser was stored exactly');

    await seen.settled();
    t.same(offsite(seen, [base]), [], `every request went to ${base}`);
    t.ok(seen.requests.length > 5, `${seen.requests.length} requests recorded`);
    const documents = seen.requests.map((request) => new URL(request.url).pathname).filter((path) => /json|yaml/.test(path));
    t.same(documents, ['/openapi.json'], 'the page loaded the contract from /openapi.json, once, and no other document');
    t.same(seen.problems, [], 'no CSP violation, console error, page error or failed request');
    t.same(seen.contract, [], 'every API answer the browser got follows openapi.yaml');
  });

  t.test('Swagger UI: GET /plants offers the listing media type, which sends Accept for it and shows the ids', async (t) => {
    const app = await buildTestApp(t);
    const base = await listen(app);
    const token = await tokenFor(app, 'alice');
    for (const [id, name] of [
      ['42', 'Monstera'],
      ['9007199254740993', 'Past 2^53'],
    ] as const) {
      const payload = `{"id":${id},"name":"${name}"}`;
      t.equal(
        (
          await inject(t, app, {
            method: 'POST',
            url: '/plants',
            headers: { ...bearer(token), 'content-type': 'application/json' },
            payload,
          })
        ).status,
        200,
      );
    }
    const page = await openPage(t);
    const seen = await watch(page, base);
    await page.goto(`${base}/docs`, WAIT);
    await page.locator('button.authorize').first().click(WAIT);
    await page.locator('#auth-bearer-value').fill(token);
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('.auth-btn-wrapper button.btn-done').click();

    const list = page.locator('#operations-plants-listPlants');
    await list.locator('.opblock-summary').click();
    const success = list.locator('tr.response[data-code="200"]');
    // The 200's menu is the one Swagger UI lets set Accept.
    const mediaType = success.locator('.response-control-media-type--accept-controller select');
    await mediaType.waitFor(WAIT);
    t.same(
      await mediaType.locator('option').allInnerTexts(),
      ['application/json', LISTING],
      'the media-type menu offers both representations',
    );
    await mediaType.selectOption(LISTING);
    t.match(
      await success.locator('.response-control-media-type__accept-message').innerText(),
      /Accept/,
      'Swagger UI says the menu sets Accept',
    );
    t.match(await success.locator('.highlight-code').first().innerText(), /"id": 7/, 'the documented example is the listing one');

    const answered = page.waitForResponse(
      (response) => response.url().startsWith(`${base}/plants`) && response.request().method() === 'GET',
      WAIT,
    );
    await list.locator('button.execute').click();
    const response = await answered;
    t.equal(response.request().headers().accept, LISTING, 'the request asked for the listing');
    t.equal(response.headers()['content-type'], `${LISTING}; charset=utf-8`);
    t.equal(
      await response.text(),
      '[{"id":42,"name":"Monstera"},{"id":9007199254740993,"name":"Past 2^53"}]',
      'the body on the wire has every id exact',
    );
    t.equal(await liveStatus(list), '200');
    const shown = await liveBody(list);
    t.match(shown, /"id": 42,\s+"name": "Monstera"/, 'the panel shows the ids with the plants');
    // Swagger UI pretty-prints a JSON body through JSON.parse, which rounds past 2^53: its panel
    // shows 9007199254740992 here (docs/api.md and the id's description in the docs say so). The wire body above is exact.
    t.match(shown, /"id": 900719925474099\d,\s+"name": "Past 2\^53"/, 'the panel shows an id for the plant past 2^53 too');

    await list
      .locator('.live-responses-table')
      .first()
      .screenshot({ path: join(projectRoot, 'test-artifacts', 'swagger-ui-listing-response.png') });
    await seen.settled();
    t.same(seen.problems, [], 'no CSP violation, console error, page error or failed request');
    t.same(seen.contract, [], 'every API answer the browser got follows openapi.yaml');
  });
}

async function liveBody(operation: Locator): Promise<string> {
  return operation.locator('.live-responses-table tbody .response-col_description pre').first().innerText();
}
