// The three operations through app.inject on each store: success paths, ownership, idempotency,
// conflicts, pagination, exact int64 ids, Location, and the listing representation chosen by Accept.
import { parse as parseLossless } from 'lossless-json';
import t, { type Test } from 'tap';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';

const json = (body: string) => ({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });

async function setup(t: Test) {
  const app = await buildTestApp(t);
  const alice = bearer(await tokenFor(app, 'alice'));
  const bob = bearer(await tokenFor(app, 'bob'));
  const post = (headers: Record<string, string>, payload: string) =>
    inject(t, app, { method: 'POST', url: '/plants', headers: { ...headers, ...json(payload) }, payload });
  const list = (headers: Record<string, string>, query = '') => inject(t, app, { method: 'GET', url: `/plants${query}`, headers });
  const remove = (headers: Record<string, string>, id: string) => inject(t, app, { method: 'DELETE', url: `/plants/${id}`, headers });
  return { app, alice, bob, post, list, remove };
}

t.test('create answers the Plant, leaving tag out when none was given', async (t) => {
  const { alice, post, list } = await setup(t);
  const withTag = await post(alice, '{"id":1,"name":"Monstera","tag":"tropical"}');
  t.equal(withTag.status, 200);
  t.same(withTag.json(), { name: 'Monstera', tag: 'tropical' });
  const withoutTag = await post(alice, '{"id":2,"name":"Fern"}');
  t.equal(withoutTag.body, '{"name":"Fern"}');
  const emptyTag = await post(alice, '{"id":3,"name":"Cactus","tag":""}');
  t.equal(emptyTag.body, '{"name":"Cactus","tag":""}');
  t.same((await list(alice)).json(), [{ name: 'Monstera', tag: 'tropical' }, { name: 'Fern' }, { name: 'Cactus', tag: '' }]);
});

t.test('a retried create is safe; different content for the same id is a conflict that changes nothing', async (t) => {
  const { alice, post, list } = await setup(t);
  t.equal((await post(alice, '{"id":7,"name":"Ivy"}')).status, 200);
  const retry = await post(alice, '{"name":"Ivy","id":7}');
  t.equal(retry.status, 200);
  t.same(retry.json(), { name: 'Ivy' });
  for (const payload of ['{"id":7,"name":"Ivy","tag":"climber"}', '{"id":7,"name":"ivy"}', '{"id":7,"name":"Ivy","tag":""}']) {
    const conflict = await post(alice, payload);
    t.equal(conflict.status, 409, payload);
    t.match(conflict.json().message, /id 7 already exists/);
  }
  t.same((await list(alice)).json(), [{ name: 'Ivy' }]);
});

t.test("ids are per user and another user's plant is indistinguishable from a missing one", async (t) => {
  const { alice, bob, post, list, remove } = await setup(t);
  await post(alice, '{"id":7,"name":"Alice plant"}');
  t.equal((await post(bob, '{"id":7,"name":"Bob plant"}')).status, 200);
  t.same((await list(alice)).json(), [{ name: 'Alice plant' }]);
  t.same((await list(bob)).json(), [{ name: 'Bob plant' }]);
  const missing = await remove(bob, '8');
  const foreign = await post(bob, '{"id":9,"name":"x"}').then(() => remove(alice, '9'));
  t.equal(missing.status, 404);
  t.equal(foreign.status, 404);
  t.same(foreign.json(), { error: 404, message: 'You have no plant with id 9.' });
  t.same((await list(bob)).json(), [{ name: 'Bob plant' }, { name: 'x' }], 'bob keeps his plant 9');
});

t.test('delete answers 204 with no body, then 404', async (t) => {
  const { alice, post, list, remove } = await setup(t);
  await post(alice, '{"id":-5,"name":"Negative"}');
  const deleted = await remove(alice, '-5');
  t.equal(deleted.status, 204);
  t.equal(deleted.body, '');
  t.equal((await remove(alice, '-5')).status, 404);
  t.same((await list(alice)).json(), []);
});

t.test('int64 ids are exact in body and path, across the whole range', async (t) => {
  const { alice, post, list, remove } = await setup(t);
  t.equal((await post(alice, '{"id":9223372036854775807,"name":"max"}')).status, 200);
  t.equal((await post(alice, '{"id":9223372036854775806,"name":"max-1"}')).status, 200, 'a different plant from max');
  t.equal((await post(alice, '{"id":-9223372036854775808,"name":"min"}')).status, 200);
  t.equal((await post(alice, '{"id":9007199254740993,"name":"2^53+1"}')).status, 200);
  t.equal((await post(alice, '{"id":9007199254740992,"name":"2^53"}')).status, 200);
  t.same(
    (await list(alice)).json().map((p: { name: string }) => p.name),
    ['min', '2^53', '2^53+1', 'max-1', 'max'],
  );
  t.equal((await post(alice, '{"id":9223372036854775806,"name":"other"}')).status, 409, 'max-1 is still max-1');
  t.equal((await remove(alice, '9223372036854775807')).status, 204);
  t.same(
    (await list(alice)).json().map((p: { name: string }) => p.name),
    ['min', '2^53', '2^53+1', 'max-1'],
  );
  t.equal((await remove(alice, '-9223372036854775808')).status, 204);
  t.equal((await remove(alice, '9007199254740992')).status, 204);
  t.same(
    (await list(alice)).json().map((p: { name: string }) => p.name),
    ['2^53+1', 'max-1'],
  );
});

t.test('list pages follow Link headers in ascending signed id order', async (t) => {
  const { alice, post, list } = await setup(t);
  const ids = ['-9223372036854775808', '-3', '0', '5', '9007199254740993', '9223372036854775807'];
  for (const id of [...ids].reverse()) await post(alice, `{"id":${id},"name":"p${id}"}`);
  const seen: string[] = [];
  let query = '?limit=4';
  let pages = 0;
  for (;;) {
    const page = await list(alice, query);
    pages++;
    seen.push(...page.json().map((p: { name: string }) => p.name.slice(1)));
    const link = page.headers.link as string | undefined;
    if (link === undefined) break;
    const match = /^<\/plants(\?[^>]+)>; rel="next"$/.exec(link);
    t.ok(match, `Link header is well formed: ${link}`);
    query = match![1]!;
  }
  t.same(seen, ids);
  t.equal(pages, 2);
  const exact = await list(alice, '?limit=6');
  t.equal(exact.headers.link, undefined, 'no Link when the page holds the last plant');
  t.equal(exact.json().length, 6);
});

t.test('limit defaults to 100 and accepts 1 to 1000', async (t) => {
  const { alice, app, list } = await setup(t);
  const owner = 'alice';
  for (let id = 0; id < 105; id++) await app.store.forRequest().addPlant(owner, { id: BigInt(id), name: `p${id}` });
  const first = await list(alice);
  t.equal(first.json().length, 100);
  t.match(first.headers.link, /limit=100&cursor=/);
  t.equal((await list(alice, '?limit=1')).json().length, 1);
  t.equal((await list(alice, '?limit=1000')).json().length, 105);
});

t.test('unknown query parameters are ignored, so a token in the query string does nothing', async (t) => {
  const { alice, list } = await setup(t);
  t.equal((await list(alice, '?unknown=1')).status, 200);
  const viaQuery = await list({}, `?access_token=${alice.authorization.slice(7)}`);
  t.equal(viaQuery.status, 401);
});

const LISTING = 'application/vnd.plant-store.listing+json';
/** A listing body with its ids exact, as bigints (JSON.parse would round those beyond 2^53). */
const listed = (body: string) => parseLossless(body, null, (digits) => BigInt(digits)) as Array<{ id: bigint; name: string; tag?: string }>;

t.test('create answers Location: /plants/{id} with the id in exact digits; a retry too, a conflict not', async (t) => {
  const { alice, post } = await setup(t);
  for (const id of ['9223372036854775807', '9223372036854775806', '-9223372036854775808', '9007199254740993', '0', '-5']) {
    const created = await post(alice, `{"id":${id},"name":"p${id}"}`);
    t.equal(created.status, 200);
    t.equal(created.headers.location, `/plants/${id}`, id);
    t.same(created.json(), { name: `p${id}` }, 'the body stays the Plant, without its id');
  }
  t.equal(
    (await post(alice, '{"id":9007199254740993,"name":"p9007199254740993"}')).headers.location,
    '/plants/9007199254740993',
    'a retried create says where the plant is, too',
  );
  const conflict = await post(alice, '{"id":9007199254740993,"name":"other"}');
  t.equal(conflict.status, 409);
  t.equal(conflict.headers.location, undefined);
});

t.test('the listing is the same page as the Plant array, with exact ids, the same Link, and tag left out when not set', async (t) => {
  const { alice, post, list } = await setup(t);
  const ids = ['-9223372036854775808', '-3', '0', '9007199254740992', '9007199254740993', '9223372036854775806', '9223372036854775807'];
  for (const id of [...ids].reverse())
    await post(alice, id === '0' ? `{"id":${id},"name":"p${id}"}` : `{"id":${id},"name":"p${id}","tag":"t ${id} \\"q\\" é"}`);
  const asListing = { ...alice, accept: LISTING };
  let query = '?limit=3';
  const seen: bigint[] = [];
  for (let pages = 0; ; pages++) {
    t.ok(pages < 3, 'three pages');
    const plain = await list(alice, query);
    const listing = await list(asListing, query);
    t.equal(listing.status, 200);
    t.equal(listing.headers['content-type'], `${LISTING}; charset=utf-8`);
    t.equal(plain.headers['content-type'], 'application/json; charset=utf-8');
    t.equal(listing.headers.vary, 'Accept');
    t.equal(plain.headers.vary, 'Accept');
    t.equal(listing.headers.link, plain.headers.link, `${query}: the same next page`);
    const items = listed(listing.body);
    t.same(
      items.map(({ name, tag }) => (tag === undefined ? { name } : { name, tag })),
      plain.json(),
      `${query}: the same plants, in the same order`,
    );
    t.equal(listing.body.replace(/"id":-?\d+,/g, ''), plain.body, 'without its ids, the listing is the Plant array byte for byte');
    seen.push(...items.map((plant) => plant.id));
    const link = listing.headers.link as string | undefined;
    if (link === undefined) break;
    query = /^<\/plants(\?[^>]+)>; rel="next"$/.exec(link)![1]!;
  }
  t.same(seen, ids.map(BigInt), 'every id exact, each once, in ascending order');
  t.match((await list(asListing, '?limit=3')).body, /\{"id":0,"name":"p0"\}/, 'the plant without a tag has no tag key');
});

t.test('Accept chooses the representation; the listing only when named and not less wanted than application/json', async (t) => {
  const { alice, post, list } = await setup(t);
  await post(alice, '{"id":9223372036854775807,"name":"Max"}');
  const cases: Array<[string | undefined, 'listing' | 'plants']> = [
    [undefined, 'plants'],
    ['application/json', 'plants'],
    ['*/*', 'plants'],
    ['application/*', 'plants'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'plants'],
    [LISTING, 'listing'],
    [LISTING.toUpperCase(), 'listing'],
    [`${LISTING}; charset=utf-8`, 'listing'],
    [`${LISTING}, application/json`, 'listing'],
    [`application/json;q=0.9, ${LISTING}`, 'listing'],
    [`${LISTING};q=0.5, */*;q=0.1`, 'listing'],
    [`${LISTING};q=0.5, application/json`, 'plants'],
    [`${LISTING};q=0.5, */*`, 'plants'],
    [`${LISTING};q=0`, 'plants'],
    [`${LISTING};q=2`, 'plants'],
    ['application/vnd.plant-store.listing+jsonx', 'plants'],
    ['text/plain', 'plants'],
    ['application/xml', 'plants'],
  ];
  for (const [accept, expected] of cases) {
    const answer = await list(accept === undefined ? alice : { ...alice, accept });
    t.equal(answer.status, 200, `Accept: ${accept}`);
    t.equal(
      answer.headers['content-type'],
      expected === 'listing' ? `${LISTING}; charset=utf-8` : 'application/json; charset=utf-8',
      `Accept: ${accept}`,
    );
    t.equal(answer.body, expected === 'listing' ? '[{"id":9223372036854775807,"name":"Max"}]' : '[{"name":"Max"}]', `Accept: ${accept}`);
  }
});

t.test('the listing follows every write, like the Plant array', async (t) => {
  const { alice, post, list, remove } = await setup(t);
  const asListing = { ...alice, accept: LISTING };
  const ids = async () => listed((await list(asListing, '?limit=2')).body).map((plant) => plant.id);
  await post(alice, '{"id":5,"name":"five"}');
  t.same(await ids(), [5n]);
  t.same(await ids(), [5n], 'asked again: the same page');
  await post(alice, '{"id":3,"name":"three"}');
  t.same(await ids(), [3n, 5n], 'a create landing on the page');
  await post(alice, '{"id":9,"name":"nine"}');
  t.same(await ids(), [3n, 5n], 'a create after the page leaves it as it was');
  t.match((await list(asListing, '?limit=2')).headers.link, /rel="next"/);
  await remove(alice, '3');
  t.same(await ids(), [5n, 9n], 'a delete');
  t.same((await list(alice, '?limit=2')).json(), [{ name: 'five' }, { name: 'nine' }], 'and the default answer agrees');
});
