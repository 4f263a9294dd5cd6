// The SQLite store: statements prepared once, plain SQL, writes through group commit.
import type { AddResult, JsonPlantPage, PlantPage, Store, StoredPlant, TokenInfo, TokenOwner } from '../plant-store.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import { GroupCommit, type WriteQueue } from './group-commit.js';
import { PageCache } from './page-cache.js';

type PlantRow = [id: bigint, name: string, tag: string | null];
type JsonRow = [json: string, count: bigint, lastId: bigint | null];

/** Enough for the first pages of thousands of users, small next to the process. */
const PAGE_CACHE_BYTES = 4 * 1024 * 1024;

// `LIMIT ? + 0`, not `LIMIT ?`: SQLite's planner reads a bare LIMIT parameter, so binding it
// expires the statement and every execution is prepared again (4 us of a 20-row page).
const PAGE = 'SELECT id, name, tag FROM plants WHERE owner = ? ORDER BY id LIMIT ? + 0';
const PAGE_AFTER = 'SELECT id, name, tag FROM plants WHERE owner = ? AND id > ? ORDER BY id LIMIT ? + 0';
/** A page as the JSON text of a Plant array, built by SQLite: half the cost per row of handing rows to JavaScript. */
const asJson = (page: string) =>
  `SELECT json_group_array(CASE WHEN tag IS NULL THEN json_object('name', name) ELSE json_object('name', name, 'tag', tag) END), count(*), max(id) FROM (${page})`;

function prepare(db: SqliteDatabase) {
  return {
    insert: db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING'),
    findOne: db.prepare('SELECT name, tag FROM plants WHERE owner = ? AND id = ?'),
    firstPage: db.prepare(PAGE).raw().safeIntegers(),
    nextPage: db.prepare(PAGE_AFTER).raw().safeIntegers(),
    firstJsonPage: db.prepare(asJson(PAGE)).raw().safeIntegers(),
    nextJsonPage: db.prepare(asJson(PAGE_AFTER)).raw().safeIntegers(),
    hasMore: db.prepare('SELECT 1 FROM plants WHERE owner = ? AND id > ? LIMIT 1').pluck(),
    /** Changes whenever another connection, in any process, has committed to the file. */
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    delete: db.prepare('DELETE FROM plants WHERE owner = ? AND id = ?'),
    findToken: db.prepare('SELECT id, user FROM tokens WHERE hash = ? AND revoked_at IS NULL'),
    addToken: db.prepare("INSERT INTO tokens (user, hash, created_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ'))"),
    listTokens: db.prepare('SELECT id, user, created_at AS createdAt, revoked_at AS revokedAt FROM tokens ORDER BY id'),
    revokeToken: db.prepare("UPDATE tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ') WHERE id = ? AND revoked_at IS NULL"),
    countTokens: db.prepare('SELECT count(*) FROM tokens').pluck(),
    ping: db.prepare('SELECT 1 FROM plants LIMIT 1'),
  };
}

export interface SqliteStoreOptions {
  /**
   * How writes commit: group commit by default. Only the benchmark passes another (one commit
   * per request), to measure what group commit is worth.
   */
  writes?: (db: SqliteDatabase) => WriteQueue;
}

export class SqliteStore implements Store {
  readonly db: SqliteDatabase;
  readonly #sql: ReturnType<typeof prepare>;
  readonly writes: WriteQueue;
  readonly pages = new PageCache(PAGE_CACHE_BYTES);
  #dataVersion: unknown;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.db = openDatabase(path);
    this.#sql = prepare(this.db);
    this.writes = options.writes?.(this.db) ?? new GroupCommit(this.db);
    this.#dataVersion = this.#sql.dataVersion.get();
  }

  addPlant(owner: string, plant: StoredPlant): Promise<AddResult> {
    const tag = plant.tag ?? null;
    return this.writes.run(() => {
      // Inside the write's transaction, synchronously: no read can see the cache in between.
      this.pages.forget(owner);
      if (this.#sql.insert.run(owner, plant.id, plant.name, tag).changes === 1) return 'created';
      const existing = this.#sql.findOne.get(owner, plant.id) as { name: string; tag: string | null };
      return existing.name === plant.name && existing.tag === tag ? 'unchanged' : 'conflict';
    });
  }

  async listPlants(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage> {
    // One row more than asked tells whether another page follows.
    const rows = (after === undefined ? this.#sql.firstPage.all(owner, limit + 1) : this.#sql.nextPage.all(owner, after, limit + 1)) as PlantRow[];
    const more = rows.length > limit;
    if (more) rows.pop();
    const plants = rows.map(([, name, tag]) => (tag === null ? { name } : { name, tag }));
    return more ? { plants, lastId: rows[rows.length - 1]![0] } : { plants };
  }

  async listPlantsJson(owner: string, after: bigint | undefined, limit: number): Promise<JsonPlantPage> {
    if (after !== undefined) return this.#jsonPage(owner, after, limit);
    const version = this.#sql.dataVersion.get();
    if (version !== this.#dataVersion) {
      // Another connection committed: any page may have changed.
      this.pages.clear();
      this.#dataVersion = version;
    }
    const cached = this.pages.get(owner, limit);
    if (cached !== undefined) return cached;
    const page = this.#jsonPage(owner, undefined, limit);
    this.pages.set(owner, limit, page);
    return page;
  }

  #jsonPage(owner: string, after: bigint | undefined, limit: number): JsonPlantPage {
    const [json, count, lastId] = (after === undefined ? this.#sql.firstJsonPage.get(owner, limit) : this.#sql.nextJsonPage.get(owner, after, limit)) as JsonRow;
    // A full page may be the last one; one probe tells.
    const more = Number(count) === limit && this.#sql.hasMore.get(owner, lastId) !== undefined;
    return more ? { json, lastId: lastId! } : { json };
  }

  deletePlant(owner: string, id: bigint): Promise<boolean> {
    return this.writes.run(() => {
      this.pages.forget(owner);
      return this.#sql.delete.run(owner, id).changes === 1;
    });
  }

  async findToken(hash: Buffer): Promise<TokenOwner | undefined> {
    const row = this.#sql.findToken.get(hash) as { id: number; user: string } | undefined;
    return row && { tokenId: row.id, user: row.user };
  }

  addToken(user: string, hash: Buffer): Promise<number> {
    return this.writes.run(() => Number(this.#sql.addToken.run(user, hash).lastInsertRowid));
  }

  async listTokens(): Promise<TokenInfo[]> {
    return this.#sql.listTokens.all() as TokenInfo[];
  }

  revokeToken(id: number): Promise<boolean> {
    return this.writes.run(() => this.#sql.revokeToken.run(id).changes === 1);
  }

  async countTokens(): Promise<number> {
    return this.#sql.countTokens.get() as number;
  }

  async isReady(): Promise<boolean> {
    try {
      this.#sql.ping.get();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
