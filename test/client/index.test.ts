// @plant-store/client against a real listening server: exact int64 ids on the wire, typed
// failures (409, 401, 404, 400), the page iterators following Link headers, and ids read back exact.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import {
  createPlantStoreClient,
  LISTING_MEDIA_TYPE,
  PlantStoreError,
  type ApiError,
  type PlantStoreApiError,
  type PlantListing,
} from '../../clients/typescript/src/index.js';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { checkedFetch, listen } from '../helpers/checked-fetch.js';

const MAX = 9223372036854775807n;
const MIN = -9223372036854775808n;

async function setup(t: Test) {
  const app = await buildTestApp(t);
  const baseUrl = await listen(app);
  const wire = checkedFetch(t);
  const client = createPlantStoreClient({ baseUrl, token: await tokenFor(app, 'alice'), fetch: wire.fetch });
  return { app, baseUrl, wire, client };
}

t.test('bigint ids beyond 2^53 go on the wire as plain JSON integers and stay distinct', async (t) => {
  const { client, wire } = await setup(t);
  for (const [id, name] of [
    [MAX, 'Max'],
    [MAX - 1n, 'Max minus one'],
    [MIN, 'Min'],
    [2n ** 53n + 1n, 'Past 2^53'],
  ] as const) {
    const { data, error, response } = await client.POST('/plants', { body: { id, name } });
    t.equal(response.status, 200, name);
    t.equal(error, undefined);
    t.same(data, { name });
  }
  t.equal(wire.sent[0]!.body, '{"id":9223372036854775807,"name":"Max"}', 'bare digits, not a string or a rounded number');
  t.equal(wire.sent[2]!.body, '{"id":-9223372036854775808,"name":"Min"}');
  t.equal(wire.sent[0]!.headers.get('content-type'), 'application/json');
  t.equal(wire.sent[0]!.headers.get('authorization')?.startsWith('Bearer pst_'), true);

  const listed = await client.GET('/plants');
  t.same(
    listed.data?.map((plant) => plant.name),
    ['Min', 'Past 2^53', 'Max minus one', 'Max'],
    'four plants, in int64 order',
  );

  const deleted = await client.DELETE('/plants/{id}', { params: { path: { id: MAX } } });
  t.equal(deleted.response.status, 204);
  t.equal(wire.sent.at(-1)!.url, '/plants/9223372036854775807');
  t.same(
    (await client.GET('/plants')).data?.map((plant) => plant.name),
    ['Min', 'Past 2^53', 'Max minus one'],
    'only MAX is gone',
  );
});

t.test('a number already rounded past 2^53 is refused before anything is sent', async (t) => {
  const { client, wire } = await setup(t);
  const refused = { name: 'PlantStoreError', kind: 'invalid-request', message: /beyond 2\^53 and has already been rounded/ };
  const body = await client.POST('/plants', { body: { id: 2 ** 53 + 2, name: 'Rounded' } }).catch((error: unknown) => error);
  t.match(body, refused, 'a rounded id in the body');
  t.ok((body as PlantStoreError).cause instanceof RangeError, 'with the RangeError as its cause');
  await t.rejects(client.DELETE('/plants/{id}', { params: { path: { id: 2 ** 60 } } }), refused, 'a rounded id in the path');
  t.equal(wire.sent.length, 0);
});

t.test('409: the same id with other content is a typed Error', async (t) => {
  const { client } = await setup(t);
  await client.POST('/plants', { body: { id: MAX, name: 'Ivy' } });
  const { data, error, response } = await client.POST('/plants', { body: { id: MAX, name: 'Ivy', tag: 'climber' } });
  t.equal(data, undefined);
  t.equal(response.status, 409);
  const body: ApiError | undefined = error;
  t.equal(body?.error, 409);
  t.ok(error instanceof PlantStoreError, 'a PlantStoreError');
  t.match(error, { kind: 'api', status: 409 });
  t.match(body?.message, /id 9223372036854775807 already exists/);
  const retried = await client.POST('/plants', { body: { id: MAX, name: 'Ivy' } });
  t.equal(retried.response.status, 200, 'the same content again is safe');
});

t.test('401: a revoked or unknown token is a typed Error with a Bearer challenge', async (t) => {
  const { baseUrl, wire } = await setup(t);
  const stranger = createPlantStoreClient({ baseUrl, token: `pst_${'x'.repeat(43)}`, fetch: wire.fetch });
  const { data, error, response } = await stranger.GET('/plants');
  t.equal(data, undefined);
  t.equal(response.status, 401);
  t.match(error, {
    kind: 'api',
    status: 401,
    error: 401,
    message: 'The bearer token is not valid; it may have expired or been revoked. Ask for a new one.',
    headers: { 'www-authenticate': 'Bearer realm="plant-store", error="invalid_token"' },
  });
  t.equal(response.headers.get('www-authenticate'), 'Bearer realm="plant-store", error="invalid_token"');
  const iterating = stranger.allPlants().next();
  await t.rejects(iterating, { name: 'PlantStoreError', kind: 'api', status: 401, body: { error: 401 } });
});

t.test('404: deleting a plant the caller does not have is a typed Error', async (t) => {
  const { client } = await setup(t);
  const { error, response } = await client.DELETE('/plants/{id}', { params: { path: { id: -5n } } });
  t.equal(response.status, 404);
  t.match(error, { kind: 'api', status: 404, error: 404, message: 'You have no plant with id -5.' });
  t.same(error?.body, { error: 404, message: 'You have no plant with id -5.' }, 'the Error body as the service sent it');
});

t.test('allPlants follows rel="next" page by page until the last page', async (t) => {
  const { client, wire } = await setup(t);
  const edges = [MIN, MIN + 1n, -(2n ** 53n) - 1n, -1n, 0n, 2n ** 53n, 2n ** 53n + 1n, MAX - 1n, MAX];
  const ids = [...edges, ...Array.from({ length: 14 }, (_, index) => BigInt(index + 1) * 1000n)].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  for (const id of [...ids].reverse()) await client.POST('/plants', { body: { id, name: `p${id}` } });
  wire.sent.length = 0;

  const names: string[] = [];
  for await (const plant of client.allPlants({ limit: 10 })) names.push(plant.name);
  t.same(
    names,
    ids.map((id) => `p${id}`),
    'every plant once, in ascending id order',
  );
  t.same(
    wire.sent.map((request) => request.url.replace(/cursor=[^&]+/, 'cursor=…')),
    ['/plants?limit=10', '/plants?limit=10&cursor=…', '/plants?limit=10&cursor=…'],
  );
  t.ok(
    wire.sent.every((request) => request.headers.get('authorization')?.startsWith('Bearer ')),
    'every page is authenticated',
  );
});

t.test('allPlants stops early when the loop breaks, and yields nothing for no plants', async (t) => {
  const { client, wire } = await setup(t);
  const none: unknown[] = [];
  for await (const plant of client.allPlants()) none.push(plant);
  t.same(none, []);
  for (let id = 1; id <= 5; id++) await client.POST('/plants', { body: { id, name: `p${id}` } });
  wire.sent.length = 0;
  for await (const plant of client.allPlants({ limit: 2 })) if (plant.name === 'p3') break;
  t.equal(wire.sent.length, 2, 'the third page is never fetched');
});

t.test('allPlants throws a PlantStoreError carrying the 400 Error body', async (t) => {
  const { client } = await setup(t);
  const failure = await client
    .allPlants({ limit: 0 })
    .next()
    .catch((error: unknown) => error);
  t.ok(failure instanceof PlantStoreError);
  t.equal((failure as PlantStoreApiError).status, 400);
  t.match(failure, { kind: 'api', body: { message: /limit/ } });
});

t.test('allPlantListings yields every plant with its id exact, beyond 2^53, page by page like allPlants', async (t) => {
  const { client, wire } = await setup(t);
  const edges = [MIN, MIN + 1n, -(2n ** 53n) - 1n, -1n, 0n, 2n ** 53n, 2n ** 53n + 1n, MAX - 1n, MAX];
  for (const id of [...edges].reverse())
    await client.POST('/plants', { body: { id, name: `p${id}`, ...(id % 2n === 0n ? {} : { tag: `t${id}` }) } });
  wire.sent.length = 0;

  const listings: PlantListing[] = [];
  for await (const plant of client.allPlantListings({ limit: 4 })) listings.push(plant);
  t.same(
    listings,
    edges.map((id) => (id % 2n === 0n ? { id, name: `p${id}` } : { id, name: `p${id}`, tag: `t${id}` })),
    'every id exact (bigint, not a rounded number), in ascending order, tag only where set',
  );
  t.ok(listings.every((plant) => typeof plant.id === 'bigint'));
  t.same(
    wire.sent.map((request) => request.headers.get('accept')),
    Array(3).fill(LISTING_MEDIA_TYPE),
    'each of the three pages asked for the listing',
  );
  const plainNames: string[] = [];
  for await (const plant of client.allPlants({ limit: 4 })) plainNames.push(plant.name);
  t.same(
    plainNames,
    listings.map((plant) => plant.name),
    'the same plants as allPlants',
  );

  const fromLocation = await client.POST('/plants', { body: { id: MAX - 2n, name: 'Located' } });
  t.equal(fromLocation.response.headers.get('location'), `/plants/${MAX - 2n}`, 'POST answers where the plant is, digit for digit');
});

t.test('allPlantListings throws a PlantStoreError on a failed page, and says so when the service answers without ids', async (t) => {
  const { baseUrl, client, wire } = await setup(t);
  await t.rejects(client.allPlantListings({ limit: 0 }).next(), { name: 'PlantStoreError', status: 400 });
  // A service (or proxy) that ignores Accept answers the Plant array: no ids to give.
  const ignoringAccept = createPlantStoreClient({
    baseUrl,
    token: wire.sent[0]!.headers.get('authorization')!.slice('Bearer '.length),
    fetch: (request) => {
      const headers = new Headers(request.headers);
      headers.delete('accept');
      return wire.fetch(new Request(request, { headers }));
    },
  });
  await client.POST('/plants', { body: { id: 1n, name: 'One' } });
  await t.rejects(ignoringAccept.allPlantListings().next(), {
    name: 'PlantStoreError',
    kind: 'invalid-answer',
    status: 200,
    message: /answered application\/json; charset=utf-8 instead of application\/vnd\.plant-store\.listing\+json/,
  });
});

// A load balancer or proxy in front answers for itself: an HTML 502, an empty 504. The types say every
// `error` is the contract's Error; before, `error` was the HTML string and `error.error` undefined.
t.test('an answer that did not come from the service is an Error too, made from its status', async (t) => {
  const gateway = createServer((request, response) => {
    if (request.url?.startsWith('/plants?')) response.writeHead(504, { 'retry-after': '3' }).end();
    else response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502 Bad Gateway</h1>');
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => gateway.close(resolve)));
  const client = createPlantStoreClient({ baseUrl: `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`, token: 'pst_x' });
  const { error, response } = await client.GET('/plants');
  t.equal(response.status, 502);
  const proxied = { error: 502, message: 'The answer did not come from the service: 502 Bad Gateway (text/html).' };
  t.match(error, { kind: 'api', status: 502, ...proxied });
  t.same(error?.body, proxied);
  const deleted = await client.DELETE('/plants/{id}', { params: { path: { id: 1n } } });
  t.same(deleted.error?.body, proxied);
  let thrown: unknown;
  try {
    for await (const plant of client.allPlants({ limit: 10 })) t.fail(`no plant: ${plant.name}`);
  } catch (caught) {
    thrown = caught;
  }
  t.ok(thrown instanceof PlantStoreError);
  t.equal((thrown as PlantStoreApiError).status, 504);
  t.match(thrown, { kind: 'api', headers: { 'retry-after': '3' } });
  t.same((thrown as PlantStoreApiError).body, {
    error: 504,
    message: 'The answer did not come from the service: 504 Gateway Timeout (no content type).',
  });
});

t.test('no answer at all is a PlantStoreError of kind connection, with what fetch threw as its cause', async (t) => {
  // A port that was just listened on and closed: nothing answers there.
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const nobody = createPlantStoreClient({ baseUrl: `http://127.0.0.1:${port}`, token: 'pst_x' });
  const failure = await nobody.GET('/plants').catch((error: unknown) => error);
  t.match(failure, { name: 'PlantStoreError', kind: 'connection', reason: 'network', message: /No answer from the service/ });
  t.ok((failure as PlantStoreError).cause instanceof TypeError, "fetch's TypeError is the cause");
  await t.rejects(nobody.allPlants().next(), { name: 'PlantStoreError', kind: 'connection', reason: 'network' }, 'allPlants too');

  // A server that takes the request and never answers: aborted by the caller, or timed out.
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    silent.closeAllConnections();
    return new Promise((resolve) => silent.close(resolve));
  });
  const waiting = createPlantStoreClient({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, token: 'pst_x' });
  const controller = new AbortController();
  const aborted = waiting.GET('/plants', { signal: controller.signal });
  controller.abort();
  await t.rejects(aborted, { name: 'PlantStoreError', kind: 'connection', reason: 'abort' });
  await t.rejects(waiting.GET('/plants', { signal: AbortSignal.timeout(50) }), {
    name: 'PlantStoreError',
    kind: 'connection',
    reason: 'timeout',
  });
});
