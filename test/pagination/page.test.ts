// The page rule for a store that reads rows (PostgreSQL; SQLite builds the same page itself): one row
// more than the page holds says another page follows, and the next page starts after this page's last id.
import t from 'tap';
import { decodeCursor } from '../../src/pagination/cursor.js';
import { rowsToRead, toPage, type PlantRow } from '../../src/pagination/page.js';

const rows = (...ids: bigint[]): PlantRow[] => ids.map((id) => [id, `p${id}`, id % 2n === 0n ? null : `t${id}`]);

t.test('a page of limit plants, and whether more follow, from limit + 1 rows', async (t) => {
  t.equal(rowsToRead(20), 21);
  const page = toPage(rows(-9223372036854775808n, 1n, 2n), 2);
  t.equal(page.json, '[{"name":"p-9223372036854775808"},{"name":"p1","tag":"t1"}]', 'the extra row is not on the page; no tag, no key');
  t.equal(page.lastId, 1n);
  t.equal(decodeCursor(page.cursor!), 1n, 'the next page starts after the last id on this one');
});

t.test('no more rows than the limit: the last page, with no cursor', async (t) => {
  t.same(toPage(rows(1n, 2n), 2), { json: '[{"name":"p1","tag":"t1"},{"name":"p2"}]' });
  t.same(toPage(rows(1n), 5), { json: '[{"name":"p1","tag":"t1"}]' });
  t.same(toPage([], 5), { json: '[]' });
});

t.test('the text is JSON.stringify of the plants, whatever they hold', async (t) => {
  const awkward = ['quote " inside', 'back\\slash', 'émoji 🌵 and 中文', 'line\u2028separator', '</script>', ''];
  const page = toPage(
    awkward.map((name, i): PlantRow => [BigInt(i), name, name]),
    100,
  );
  t.equal(page.json, JSON.stringify(awkward.map((name) => ({ name, tag: name }))));
});

t.test('the listing: the same plants with their ids, cut at the same place, made once', async (t) => {
  const page = toPage(rows(-9223372036854775808n, 9007199254740993n, 4n), 2);
  t.equal(
    page.listingJson,
    '[{"id":-9223372036854775808,"name":"p-9223372036854775808"},{"id":9007199254740993,"name":"p9007199254740993","tag":"t9007199254740993"}]',
  );
  t.equal(page.listingJson, page.listingJson, 'the same text again');
  t.equal(page.listingJson.replace(/"id":-?\d+,/g, ''), page.json, 'without the ids, the default text');
  t.equal(toPage([], 5).listingJson, '[]');
  const awkward = ['quote " inside', 'back\\slash', 'émoji 🌵 and 中文', 'line\u2028separator', '</script>', ''];
  const listing = toPage(
    awkward.map((name, i): PlantRow => [BigInt(i), name, name]),
    100,
  ).listingJson;
  t.equal(listing, JSON.stringify(awkward.map((name, id) => ({ id, name, tag: name }))));
});

t.test('a page keeps none of its rows: what it answers is fixed when it is cut', async (t) => {
  const read = rows(1n, 2n, 3n);
  const page = toPage(read, 2);
  for (const row of read) {
    row[0] = 99n;
    row[1] = 'changed';
  }
  t.equal(page.json, '[{"name":"p1","tag":"t1"},{"name":"p2"}]');
  t.equal(page.listingJson, '[{"id":1,"name":"p1","tag":"t1"},{"id":2,"name":"p2"}]');
});

t.test("a page's size for caches covers its text, its ids and its listing once made", async (t) => {
  for (const page of [
    toPage(rows(1n, 2n, 3n), 2),
    toPage(rows(...Array.from({ length: 101 }, (_, i) => -9223372036854775808n + BigInt(i))), 100),
    toPage([], 5),
  ]) {
    const before = page.bytes;
    const ids = [...page.listingJson.matchAll(/"id":(-?\d+)/g)].map((match) => match[1]).join(',');
    t.ok(before >= (page.json.length + page.listingJson.length + ids.length) * 2, `${before} bytes`);
    t.equal(page.bytes, before, 'fixed: making the listing does not change it, so a cache can subtract what it added');
  }
});
