// The ceilings answer Plant Store's calls with the right statuses, shapes and Link headers: the fixed
// one with constants, the page-building one with the very page Plant Store would send.
import t from 'tap';
import { decodeCursor, encodeCursor } from '../../bench/cursors.js';
import { buildCeiling } from '../../bench/servers/ceiling-app.js';
import { buildCeilingPages } from '../../bench/servers/ceiling-pages-app.js';
import { benchUserPlants, firstPage } from '../../bench/servers/fixed-page.js';

/** Plant Store's Link: `</plants?limit=N&cursor=C>; rel="next"`; the cursor it names, decoded. */
function nextCursor(link: unknown): bigint {
  const match = /^<\/plants\?limit=20&cursor=([A-Za-z0-9_-]+)>; rel="next"$/.exec(String(link));
  if (match === null) throw new Error(`not a next link: ${String(link)}`);
  return decodeCursor(match[1]!);
}

const isPlant = (value: unknown) => {
  const plant = value as Record<string, unknown>;
  const keys = Object.keys(plant).sort().join(',');
  return typeof plant.name === 'string' && (keys === 'name' || (keys === 'name,tag' && typeof plant.tag === 'string'));
};

t.test('the fixed ceiling: a constant page with a next link, a plant, 204', async (t) => {
  const app = buildCeiling();
  t.teardown(() => app.close());
  for (const url of ['/plants?limit=20', `/plants?limit=20&cursor=${encodeCursor(500n)}`]) {
    const page = await app.inject({ url });
    t.equal(page.statusCode, 200, url);
    t.equal(page.headers['content-type'], 'application/json; charset=utf-8');
    t.same(page.json(), firstPage(20), 'the bench user first page, whatever the cursor');
    t.equal(nextCursor(page.headers.link), 20n);
  }
  const created = await app.inject({
    method: 'POST',
    url: '/plants',
    headers: { 'content-type': 'application/json' },
    payload: '{"id":9223372036854775807,"name":"x"}',
  });
  t.equal(created.statusCode, 200);
  t.equal(created.headers['content-type'], 'application/json; charset=utf-8');
  t.ok(isPlant(created.json()), 'a Plant');
  const deleted = await app.inject({ method: 'DELETE', url: '/plants/42' });
  t.equal(deleted.statusCode, 204);
  t.equal(deleted.body, '');
});

t.test('the page-building ceiling: the page after the cursor and the link to the next', async (t) => {
  const app = buildCeilingPages();
  t.teardown(() => app.close());
  const plants = benchUserPlants();
  for (const after of [0, 1, 4321, plants.length - 21]) {
    const page = await app.inject({ url: `/plants?limit=20&cursor=${encodeCursor(BigInt(after))}` });
    t.equal(page.statusCode, 200);
    t.equal(page.headers['content-type'], 'application/json; charset=utf-8');
    t.same(page.json(), plants.slice(after, after + 20), `plants ${after + 1} to ${after + 20}`);
    t.equal(nextCursor(page.headers.link), BigInt(after + 20));
  }
  const first = await app.inject({ url: '/plants?limit=20' });
  t.same(first.json(), firstPage(20));
  t.equal(nextCursor(first.headers.link), 20n);
  const last = await app.inject({ url: `/plants?limit=20&cursor=${encodeCursor(BigInt(plants.length - 20))}` });
  t.equal(last.json<unknown[]>().length, 20);
  t.equal(last.headers.link, undefined, 'no link after the last page');
  const bad = await app.inject({ url: '/plants?limit=20&cursor=nonsense' });
  t.equal(bad.statusCode, 400, 'a cursor it did not issue');
  t.ok(firstPage(20).every(isPlant));
});
