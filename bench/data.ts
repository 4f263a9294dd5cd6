// Benchmark data: a 1,000,000-row and a 10,000-row SQLite file, built once and cached in
// bench/.data under a version string; each run works on fresh copies with its own tokens.
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createToken } from '../src/auth/tokens.js';
import { migrate } from '../src/store/sqlite/database.js';
import { migrations } from '../src/store/sqlite/migrations.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { BENCH_USER } from './bench-user.js';
import type { Seed } from './load/seeds.js';
import { PLANTS_PER_USER, plantName, plantTag } from './plant-content.js';

/** Change when the generated content changes, so stale caches are rebuilt, not reused. */
export const DATA_VERSION = `v1-schema${migrations.length}`;

export interface DataSet {
  name: string;
  rows: number;
  path: string;
}

/** Users in key order, 10,000 plants each; the small data set holds the bench user alone. */
function users(total: number): string[] {
  const count = total / PLANTS_PER_USER;
  if (count === 1) return [BENCH_USER];
  return Array.from({ length: count }, (_, i) => `user-${String(i).padStart(4, '0')}`);
}

function generate(path: string, rows: number): void {
  rmSync(path, { force: true });
  const db = new Database(path);
  // Speed for a file that is rebuilt when lost: no journal, no fsync, during generation only.
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  migrate(db);
  const insert = db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    // Key order: every insert appends to the end of the b-tree.
    for (const owner of users(rows)) {
      for (let id = 1; id <= PLANTS_PER_USER; id++) {
        insert.run(owner, id, plantName(id, owner), plantTag(id));
      }
    }
  })();
  db.pragma('journal_mode = WAL'); // the mode the servers use; persistent in the file
  db.close();
}

/** The cached file for `rows` rows, generated when missing. */
export function dataSet(dir: string, rows: number): DataSet {
  const name = rows >= 1_000_000 ? `${rows / 1_000_000}m` : `${rows / 1000}k`;
  const path = join(dir, `plants-${name}-${DATA_VERSION}.db`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${path}.partial`;
    generate(partial, rows);
    renameSync(partial, path); // a run interrupted mid-way leaves no file that looks complete
  }
  return { name, rows, path };
}

/** A private copy of a data set for one server, with a fresh token for the bench user and for each of `users`. */
export async function workingCopy(
  data: DataSet,
  path: string,
  users: readonly string[] = [],
): Promise<{ path: string; tokens: Map<string, string> }> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  copyFileSync(data.path, path);
  const store = new SqliteStore(path);
  try {
    const owners = [...new Set([BENCH_USER, ...users])];
    // Together: the writes share group commits.
    const made = await Promise.all(owners.map(async (owner) => [owner, (await createToken(store, owner)).token] as const));
    return { path, tokens: new Map(made) };
  } finally {
    await store.close();
  }
}

/** Inserts each seed's plants (owner, firstId..firstId+count-1) into a server's file, for deletes to find. */
export function seedPlants(path: string, seeds: readonly Seed[]): void {
  const db = new Database(path);
  try {
    db.pragma('busy_timeout = 10000');
    const insert = db.prepare('INSERT OR IGNORE INTO plants (owner, id, name) VALUES (?, ?, ?)');
    db.transaction(() => {
      for (const { owner, firstId, count } of seeds)
        for (let id = firstId; id < firstId + count; id++) insert.run(owner, id, `To delete ${id}`);
    })();
  } finally {
    db.close();
  }
}
