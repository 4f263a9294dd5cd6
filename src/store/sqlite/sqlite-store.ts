// The SQLite store: plain SQL prepared once, row mappers, and the caches of first pages and token
// owners. Every statement runs through the engine (engine.ts), which says why answers are durable and fresh.
import type { LRUCache } from 'lru-cache';
import { PlantPage, rowsToRead, type PageJson } from '../../pagination/page.js';
import type { PlantStore, Readiness, Store, TokenHash, TokenInfo, TokenOwner } from '../plant-store.js';
import { TokenUses } from '../token-uses.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import { AFTER_SYNC, Engine, type EngineOptions } from './engine.js';

/** Enough for the first pages of thousands of users, small next to the process. */
const PAGE_CACHE_BYTES = 4 * 1024 * 1024;
/** Active tokens remembered; past this many the memory is simply cleared. */
const TOKEN_CACHE_ENTRIES = 10_000;

function prepare(db: SqliteDatabase) {
  const now = "strftime('%Y-%m-%dT%H:%M:%fZ')";
  /**
   * A page built by SQLite in one row, half the CPU of rows handed to JavaScript (docs/benchmarks.md): its JSON text
   * (json_object escapes as JSON.stringify does), its ids' text, its last id and the next page's first id (null: none).
   * The aggregates take rows in the order the subquery yields them, which SQLite does not promise (an ORDER BY in each
   * costs as much again): page-json.test.ts fails if it changes. `CAST(? AS TEXT)` and `? + 0` cost less than bare `?`s.
   */
  const page = (where: string) => `
    SELECT json, ids, last, (SELECT id FROM plants WHERE owner = CAST(? AS TEXT) AND id > last ORDER BY id LIMIT 1) FROM (
      SELECT json_group_array(IIF(tag IS NULL, json_object('name', name), json_object('name', name, 'tag', tag))) AS json,
        coalesce(group_concat(id), '') AS ids, max(id) AS last
      FROM (SELECT id, name, tag FROM plants WHERE owner = CAST(? AS TEXT)${where} ORDER BY id LIMIT ? + 0))`;
  return {
    insert: db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING'),
    findOne: db.prepare('SELECT name, tag FROM plants WHERE owner = ? AND id = ?').raw(),
    delete: db.prepare('DELETE FROM plants WHERE owner = ? AND id = ?'),
    firstPage: db.prepare(page('')).raw().safeIntegers(),
    nextPage: db.prepare(page(' AND id > ?')).raw().safeIntegers(),
    findToken: db.prepare('SELECT id, user, expires_at FROM tokens WHERE hash = ? AND revoked_at IS NULL').raw(),
    addToken: db.prepare(`INSERT INTO tokens (user, hash, created_at, expires_at) VALUES (?, ?, ${now}, ?)`),
    // Every token, or one user's (null: any); expiry by the clock #findToken checks it against: this process's, which is SQLite's.
    listTokens: db.prepare(`SELECT id, user, created_at AS createdAt, expires_at AS expiresAt, coalesce(expires_at <= ${now}, 0) AS expired,
      last_used_at AS lastUsedAt, revoked_at AS revokedAt FROM tokens WHERE user = coalesce(?, user) ORDER BY id`),
    // Text comparison is time order: every time here has the same ISO form (strftime's %f and toISOString agree).
    noteUse: db.prepare('UPDATE tokens SET last_used_at = @at WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @at)'),
    revokeToken: db.prepare(`UPDATE tokens SET revoked_at = ${now} WHERE id = ? AND revoked_at IS NULL`),
    revokeUserTokens: db.prepare(
      `UPDATE tokens SET revoked_at = ${now} WHERE user = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now})`,
    ),
    countTokens: db.prepare('SELECT count(*) FROM tokens').pluck(),
    ping: db.prepare('SELECT 1 FROM plants LIMIT 1'),
  };
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly #db: SqliteDatabase;
  readonly #sql: ReturnType<typeof prepare>;
  readonly #engine: Engine;
  readonly #uses: TokenUses;
  /** First pages, per owner and then page size, within a budget of bytes (owners used least recently go first): #pages. */
  #pageCache: LRUCache<string, ReadonlyMap<number, PlantPage>> | undefined;
  /**
   * Owners of active tokens by hash, with when each expires (ms since the epoch; Infinity: never); unknown and
   * revoked tokens are not kept, so guesses cannot fill memory.
   */
  readonly #tokens = new Map<TokenHash, { owner: TokenOwner; expiresAt: number }>();
  #closing: Promise<void> | undefined;
  /** The writes of every request's handle: they go to the engine's next write round as they are. */
  readonly #writes: Pick<PlantStore, 'addPlant' | 'deletePlant'> = {
    addPlant: (owner, plant) => {
      const tag = plant.tag ?? null;
      return this.#engine.write(() => {
        if (this.#sql.insert.run(owner, plant.id, plant.name, tag).changes === 1) {
          this.#keepPagesBefore(owner, plant.id);
          return 'created';
        }
        const [name, existingTag] = this.#sql.findOne.get(owner, plant.id) as [string, string | null];
        return name === plant.name && existingTag === tag ? 'unchanged' : 'conflict';
      });
    },
    deletePlant: (owner, id) =>
      this.#engine.write(() => {
        this.#keepPagesBefore(owner, id, true);
        return this.#sql.delete.run(owner, id).changes === 1;
      }),
  };

  constructor(path: string, options: Omit<EngineOptions, 'onForeignCommit'> = {}) {
    this.#db = openDatabase(path, options.log);
    this.#sql = prepare(this.#db);
    this.#engine = new Engine(this.#db, {
      ...options,
      onForeignCommit: () => {
        this.#pageCache?.clear();
        this.#tokens.clear();
      },
    });
    // Token uses share the commit of the plant writes of the moment.
    this.#uses = new TokenUses((uses) =>
      this.#engine.write(() => {
        for (const [id, at] of uses) this.#sql.noteUse.run({ id, at: new Date(at).toISOString() });
      }),
    );
  }

  /**
   * A request's handle. Its first read runs in the engine's next round, whose look comes after the request arrived
   * (engine.ts, guarantee 2): after that, a first page the cache holds is answered at once, without a round of its own.
   * That round is a turn of the event loop a first page no longer waits for: about 1.2 µs of 23 of CPU a request
   * (bench/findings.md, issue 54).
   */
  forRequest(): PlantStore {
    let looked = false;
    const read = <T>(run: (syncing: boolean) => T | typeof AFTER_SYNC, rows: number) =>
      this.#engine.read(
        (syncing) => {
          looked = true;
          return run(syncing);
        },
        rows,
        true,
      );
    return {
      findToken: (hash) => read((syncing) => this.#findToken(hash, syncing), 1),
      listPlants: (owner, after, limit) => {
        const cached = looked && after === undefined && !this.#engine.stopped ? this.#cachedFirstPage(owner, limit) : undefined;
        if (cached !== undefined) return Promise.resolve(cached);
        return read((syncing) => this.#readPage(owner, after, limit, syncing), rowsToRead(limit));
      },
      addPlant: this.#writes.addPlant,
      deletePlant: this.#writes.deletePlant,
    };
  }

  /**
   * The page cache, made at the first page read or write: only a serving store has them, and lru-cache costs a `token
   * create` 3 ms to load. By require (its CommonJS build): synchronously.
   */
  get #pages(): LRUCache<string, ReadonlyMap<number, PlantPage>> {
    if (this.#pageCache !== undefined) return this.#pageCache;
    const { LRUCache } = process.getBuiltinModule('node:module').createRequire(import.meta.url)('lru-cache') as typeof import('lru-cache');
    return (this.#pageCache = new LRUCache<string, ReadonlyMap<number, PlantPage>>({
      maxSize: PAGE_CACHE_BYTES,
      sizeCalculation: (pages) => [...pages.values()].reduce((sum, page) => sum + page.bytes, 0),
    }));
  }

  /**
   * Inside a write at `id`: the owner's first pages it cannot change stay (full, ending before `id`, the plant
   * after them kept), in a new entry, so that the cache counts its size again; the others go.
   */
  #keepPagesBefore(owner: string, id: bigint, deleting = false): void {
    const unchanged = (page: PlantPage) => page.lastId !== undefined && page.lastId < id && !(deleting && page.nextId === id);
    const kept = [...(this.#pages.peek(owner) ?? [])].filter(([, page]) => unchanged(page));
    if (kept.length > 0) this.#pages.set(owner, new Map(kept));
    else this.#pages.delete(owner);
  }

  /** The owner's first page of `limit` plants, if the cache holds it (asking makes no cache: only reads and writes do). */
  #cachedFirstPage(owner: string, limit: number): PlantPage | undefined {
    return this.#pageCache?.get(owner)?.get(limit);
  }

  /** A first page the cache holds comes from it; any other page from the database, unless a sync runs. */
  #readPage(owner: string, after: bigint | undefined, limit: number, syncing: boolean): PlantPage | typeof AFTER_SYNC {
    const cached = after === undefined ? this.#cachedFirstPage(owner, limit) : undefined;
    if (cached !== undefined || syncing) return cached ?? AFTER_SYNC;
    const [json, ids, lastId, nextId] = (
      after === undefined ? this.#sql.firstPage.get(owner, owner, limit) : this.#sql.nextPage.get(owner, owner, after, limit)
    ) as [PageJson, string, bigint | null, bigint | null]; // json_object writes the JSON of each Plant (above)
    const page = new PlantPage(json, ids, nextId === null ? undefined : { lastId: lastId!, nextId });
    if (after === undefined) this.#pages.set(owner, new Map(this.#pages.peek(owner)).set(limit, page));
    return page;
  }

  addTokens(user: string, hashes: readonly TokenHash[], expiresAt: Date | null = null): Promise<number[]> {
    const expires = expiresAt?.toISOString() ?? null;
    // One write: the engine runs it in one transaction, so a failure leaves none of them.
    return this.#engine.write(() =>
      hashes.map((hash) => Number(this.#sql.addToken.run(user, Buffer.from(hash, 'base64'), expires).lastInsertRowid)),
    );
  }

  async listTokens(user?: string): Promise<TokenInfo[]> {
    type Row = Omit<TokenInfo, 'expired'> & { expired: 0 | 1 };
    const rows = await this.#engine.read(() => this.#sql.listTokens.all(user ?? null) as Row[]);
    return rows.map((token) => ({ ...token, expired: token.expired === 1 }));
  }

  revokeToken(id: number): Promise<boolean> {
    return this.#engine.write(() => {
      this.#tokens.clear();
      return this.#sql.revokeToken.run(id).changes === 1;
    });
  }

  revokeUserTokens(user: string): Promise<number> {
    return this.#engine.write(() => {
      this.#tokens.clear();
      return this.#sql.revokeUserTokens.run(user).changes;
    });
  }

  countTokens(): Promise<number> {
    return this.#engine.read(() => this.#sql.countTokens.get() as number);
  }

  /** Readable (the engine refuses every read once a sync failed), not damaged, and with room to write. */
  async readiness(): Promise<Readiness> {
    const read = await this.#engine.read(() => this.#sql.ping.get()).catch(() => false);
    const health = await this.#engine.health.readiness();
    return health !== 'ready' || read !== false ? health : 'unreachable';
  }

  close(): Promise<void> {
    return (this.#closing ??= (async () => {
      await this.#uses.close();
      await this.#engine.close();
      if (this.#db.open) this.#db.close();
    })());
  }

  /** Expiry is checked at every lookup, cached or not, against this process's clock (SQLite's own). */
  #findToken(hash: TokenHash, syncing: boolean): TokenOwner | undefined | typeof AFTER_SYNC {
    let known = this.#tokens.get(hash);
    if (known === undefined) {
      if (syncing) return AFTER_SYNC;
      const row = this.#sql.findToken.get(Buffer.from(hash, 'base64')) as [id: number, user: string, expiresAt: string | null] | undefined;
      if (row === undefined) return undefined;
      if (this.#tokens.size >= TOKEN_CACHE_ENTRIES) this.#tokens.clear();
      known = { owner: { tokenId: row[0], user: row[1] }, expiresAt: row[2] === null ? Infinity : Date.parse(row[2]) };
      this.#tokens.set(hash, known);
    }
    // Tokens that never expire, nearly all of them, skip the clock.
    if (known.expiresAt !== Infinity && Date.now() >= known.expiresAt) return undefined;
    this.#uses.used(known.owner.tokenId); // noted only: written later, off the request
    return known.owner;
  }
}
