// The SQLite store's pages are built by SQLite (json_group_array): byte for byte the page toPage cuts
// from the same rows read plainly, JSON.stringify's text, for every character a name can hold, in id
// order (which SQLite's aggregates do not promise: this is where a change would show).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { rowsToRead, toPage, type PlantPage, type PlantRow } from '../../../src/pagination/page.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { tempDir } from '../../helpers/app.js';

/** Every UTF-16 code unit but the surrogates (SQLite's UTF-8 text holds no lone one), 64 to a name, and a few whole characters. */
function awkwardNames(): string[] {
  const units: string[] = [];
  for (let unit = 0; unit < 0x10000; unit++) if (unit < 0xd800 || unit > 0xdfff) units.push(String.fromCharCode(unit));
  const names: string[] = [];
  for (let i = 0; i < units.length; i += 64) names.push(units.slice(i, i + 64).join(''));
  return [...names, '🌵 cactus', 'nul \u0000 inside', '"quoted" \\ back\\slash /', '\u2028\u2029', ''];
}

/** ids spread from one end of int64 to the other. */
function spreadIds(count: number): bigint[] {
  return Array.from({ length: count }, (_, i) => -9223372036854775808n + (18446744073709551615n * BigInt(i)) / BigInt(count - 1));
}

/** The page a plain query and toPage make, on a connection of its own: the reference SQLite's text must equal. */
function plainPages(t: Test, path: string) {
  const db = new Database(path, { readonly: true });
  t.teardown(() => db.close());
  const rows = db
    .prepare('SELECT id, name, tag FROM plants WHERE owner = ? AND (? IS NULL OR id > ?) ORDER BY id LIMIT ?')
    .raw()
    .safeIntegers();
  return (owner: string, after: bigint | undefined, limit: number): PlantPage =>
    toPage(rows.all(owner, after ?? null, after ?? null, rowsToRead(limit)) as PlantRow[], limit);
}

t.test("SQLite's page text is toPage's of the same rows: every character, id order, where pages end", async (t) => {
  const path = join(tempDir(t), 'plants.db');
  const store = new SqliteStore(path);
  t.teardown(() => store.close());
  const names = awkwardNames();
  const ids = spreadIds(names.length);
  const writer = store.forRequest();
  // Every third plant has no tag; the others repeat their name as the tag.
  await Promise.all(ids.map((id, i) => writer.addPlant('alice', { id, name: names[i]!, ...(i % 3 !== 0 && { tag: names[i] }) })));
  await writer.addPlant('bob', { id: 0n, name: 'not alice' });
  const plainPage = plainPages(t, path);

  for (const limit of [1, 7, 100, 500, 1000]) {
    const differences: string[] = [];
    let after: bigint | undefined;
    let pages = 0;
    let plants = 0;
    for (;;) {
      const page = await store.forRequest().listPlants('alice', after, limit);
      const plain = plainPage('alice', after, limit);
      for (const key of ['json', 'listingJson', 'lastId', 'cursor', 'nextId'] as const) {
        if (page[key] !== plain[key]) differences.push(`page ${pages}: ${key}`);
      }
      pages++;
      plants += (JSON.parse(page.json) as unknown[]).length;
      if (page.lastId === undefined) break;
      after = page.lastId;
    }
    t.same(differences, [], `limit ${limit}: ${pages} pages, each the same as toPage's`);
    t.equal(plants, names.length, `limit ${limit}: every plant once`);
  }
  t.equal((await store.forRequest().listPlants('carol', undefined, 10)).json, '[]', 'no plants: an empty page');
  t.equal((await store.forRequest().listPlants('carol', undefined, 10)).listingJson, '[]');
});
