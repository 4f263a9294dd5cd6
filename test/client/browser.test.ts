// @plant-store/client in a real browser page on another origin, through CORS: bigint ids, the
// exposed Link and Location headers, ids read back exact from the listing, typed failures; and a page on an origin that is
// not allowed cannot call the API at all.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import ts from 'typescript';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';
import { offsite, openPage, skipReason, WAIT, watch } from '../helpers/chromium.js';
import { projectRoot } from '../helpers/paths.js';

const PAGE = `<!doctype html>
<script type="importmap">{ "imports": { "openapi-fetch": "/openapi-fetch.mjs" } }</script>
<script type="module">
  import { createPlantStoreClient, PlantStoreError } from '/client/index.js';
  window.consumer = async (api, token) => {
    const client = createPlantStoreClient({ baseUrl: api, token });
    const created = [];
    const locations = [];
    for (const id of [9223372036854775807n, 1n, -9223372036854775808n, 9223372036854775806n, 2n]) {
      const { response } = await client.POST('/plants', { body: { id, name: 'p' + id } });
      created.push(response.status);
      locations.push(response.headers.get('location'));
    }
    const names = [];
    for await (const plant of client.allPlants({ limit: 2 })) names.push(plant.name);
    const listings = [];
    for await (const plant of client.allPlantListings({ limit: 2 })) listings.push(typeof plant.id + ' ' + plant.id + ' ' + plant.name);
    const conflict = await client.POST('/plants', { body: { id: 1n, name: 'another' } });
    const stranger = createPlantStoreClient({ baseUrl: api, token: 'pst_' + 'x'.repeat(43) });
    const denied = await stranger.GET('/plants');
    const thrown = await stranger.allPlants().next().catch((error) => error instanceof PlantStoreError && error.status);
    const deleted = await client.DELETE('/plants/{id}', { params: { path: { id: 9223372036854775807n } } });
    const missing = await client.DELETE('/plants/{id}', { params: { path: { id: 9223372036854775807n } } });
    return {
      created, locations, names, listings, thrown,
      conflict: conflict.error.body,
      denied: { error: denied.error.body, challenge: denied.response.headers.get('www-authenticate') },
      deleted: deleted.response.status,
      missing: missing.error.body,
    };
  };
  // Each failure a page can meet, as the fields its kind narrows to.
  const fields = (error) => {
    if (!(error instanceof PlantStoreError)) return { notAPlantStoreError: String(error) };
    switch (error.kind) {
      case 'api': return { kind: error.kind, status: error.status, error: error.error, message: error.message, body: error.body, requestId: typeof error.headers['x-request-id'] };
      case 'connection': return { kind: error.kind, reason: error.reason, status: error.status, cause: error.cause.name + ': ' + error.cause.message };
      default: return { kind: error.kind, status: error.status, message: error.message, cause: error.cause?.name };
    }
  };
  window.failures = async (allowing, refusing, closed, token) => {
    const client = createPlantStoreClient({ baseUrl: allowing, token });
    await client.POST('/plants', { body: { id: 7n, name: 'Ivy' } });
    const conflict = await client.POST('/plants', { body: { id: 7n, name: 'Fern' } });
    const attempt = (call) => call.then(() => 'no error', fields);
    return {
      conflict: fields(conflict.error),
      cors: await attempt(createPlantStoreClient({ baseUrl: refusing, token }).GET('/plants')),
      noServer: await attempt(createPlantStoreClient({ baseUrl: closed, token }).GET('/plants')),
      unsafeId: await attempt(client.DELETE('/plants/{id}', { params: { path: { id: 2 ** 53 + 2 } } })),
      pages: await attempt(createPlantStoreClient({ baseUrl: closed, token }).allPlants().next()),
    };
  };
</script>`;

/** A page's origin: the consumer page, the client compiled from clients/typescript/src, and openapi-fetch. */
async function consumerOrigin(t: Test): Promise<string> {
  const server = createServer((request, response) => {
    const url = request.url ?? '/';
    const client = /^\/client\/((?:generated\/)?[a-z-]+)\.js$/.exec(url);
    const send = (type: string, body: string) => response.writeHead(200, { 'content-type': type }).end(body);
    if (url === '/') return send('text/html', PAGE);
    if (url === '/favicon.ico') return response.writeHead(204).end();
    if (url === '/openapi-fetch.mjs')
      return send('text/javascript', readFileSync(join(projectRoot, 'node_modules/openapi-fetch/dist/index.mjs'), 'utf8'));
    if (client) {
      const source = readFileSync(join(projectRoot, 'clients', 'typescript', 'src', `${client[1]}.ts`), 'utf8');
      return send(
        'text/javascript',
        ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText,
      );
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const runConsumer = (page: Page, api: string, token: string) =>
  page.evaluate(
    ([base, bearerToken]) =>
      (globalThis as unknown as { consumer(api: string, token: string): Promise<unknown> }).consumer(base!, bearerToken!),
    [api, token],
  );

const skip = skipReason();
if (skip !== undefined) {
  t.plan(0, skip);
} else {
  t.test('a page on an allowed origin uses the client across origins', async (t) => {
    const origin = await consumerOrigin(t);
    const app = await buildTestApp(t, { corsOrigins: [origin] });
    const api = await listen(app);
    const token = await tokenFor(app, 'alice');
    const page = await openPage(t);
    const seen = await watch(page, api);
    await page.goto(`${origin}/`, WAIT);

    const result = await runConsumer(page, api, token);
    t.same(result, {
      created: [200, 200, 200, 200, 200],
      locations: ['/plants/9223372036854775807', '/plants/1', '/plants/-9223372036854775808', '/plants/9223372036854775806', '/plants/2'],
      names: ['p-9223372036854775808', 'p1', 'p2', 'p9223372036854775806', 'p9223372036854775807'],
      listings: ['-9223372036854775808', '1', '2', '9223372036854775806', '9223372036854775807'].map((id) => `bigint ${id} p${id}`),
      thrown: 401,
      conflict: {
        error: 409,
        message: 'A plant with id 1 already exists with a different name or tag; delete it first or use another id.',
      },
      denied: {
        error: { error: 401, message: 'The bearer token is not valid; it may have expired or been revoked. Ask for a new one.' },
        challenge: 'Bearer realm="plant-store", error="invalid_token"',
      },
      deleted: 204,
      missing: { error: 404, message: 'You have no plant with id 9223372036854775807.' },
    });
    const pages = seen.requests.filter(
      (request) =>
        request.method === 'GET' &&
        request.url.startsWith(`${api}/plants`) &&
        request.authorization?.startsWith('Bearer pst_') &&
        !request.authorization.includes('xxxx'),
    );
    t.equal(pages.length, 6, 'allPlants and allPlantListings each read the exposed Link header and fetched all three pages');

    await seen.settled();
    t.same(offsite(seen, [origin, api]), [], 'every request stayed on 127.0.0.1');
    // Chromium logs every failed answer; these are the four the consumer provoked, and nothing else (no CORS error).
    const failed = (status: string) => `console error: Failed to load resource: the server responded with a status of ${status}`;
    t.same([...seen.problems].sort(), [
      failed('401 (Unauthorized)'),
      failed('401 (Unauthorized)'),
      failed('404 (Not Found)'),
      failed('409 (Conflict)'),
    ]);
    t.same(seen.contract, [], 'every API answer the page got follows openapi.yaml');
  });

  t.test('every failure a page meets is a PlantStoreError whose kind says which: a 409, CORS, no server, an unsafe id', async (t) => {
    const origin = await consumerOrigin(t);
    const allowing = await buildTestApp(t, { corsOrigins: [origin] });
    const refusing = await buildTestApp(t, { corsOrigins: [] });
    const token = await tokenFor(allowing, 'alice');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const nothing = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const page = await openPage(t);
    const api = await listen(allowing);
    const seen = await watch(page, api);
    await page.goto(`${origin}/`, WAIT);

    type Fields = Record<string, unknown>;
    const result = await page.evaluate(
      (bases) => (globalThis as unknown as { failures(...bases: string[]): Promise<Record<string, Fields>> }).failures(...bases),
      [api, await listen(refusing), nothing, token],
    );
    const conflictMessage = 'A plant with id 7 already exists with a different name or tag; delete it first or use another id.';
    const noAnswer = { kind: 'connection', reason: 'network', cause: 'TypeError: Failed to fetch' };
    t.match(result, {
      conflict: {
        kind: 'api',
        status: 409,
        error: 409,
        message: conflictMessage,
        body: { error: 409, message: conflictMessage },
        requestId: 'string',
      },
      cors: noAnswer,
      noServer: noAnswer,
      unsafeId: { kind: 'invalid-request', message: /^9007199254740994 is beyond 2\^53/, cause: 'RangeError' },
      pages: noAnswer,
    });
    for (const name of ['cors', 'noServer', 'unsafeId', 'pages']) t.equal(result[name]?.status, undefined, `${name}: no status`);
    t.match(seen.problems.join('\n'), /blocked by CORS policy/, 'the page met a CORS refusal');
    t.match(seen.problems.join('\n'), /ERR_CONNECTION_REFUSED/, 'and a closed port');
  });

  t.test('a page on an origin that is not allowed cannot call the API', async (t) => {
    const allowed = await consumerOrigin(t);
    const other = await consumerOrigin(t);
    const app = await buildTestApp(t, { corsOrigins: [allowed] });
    const api = await listen(app);
    const token = await tokenFor(app, 'alice');
    const page = await openPage(t);
    const seen = await watch(page, api);
    await page.goto(`${other}/`, WAIT);

    const failure = await runConsumer(page, api, token).then(
      () => 'no error',
      (error: unknown) => (error as Error).message,
    );
    t.match(failure, /Failed to fetch/);
    t.match(seen.problems.join('\n'), /blocked by CORS policy/);
    const stored = await app.store.forRequest().listPlants('alice', undefined, 10);
    t.same(JSON.parse(stored.json), [], 'the preflight failed, so the create never reached the service');
  });
}
