// The reads a cache can answer, and when the cache may answer them. First pages and the owners of
// active tokens are kept; this store's writes drop what they change, inside the write, and a commit
// by another connection in any process drops everything at the next look at PRAGMA data_version.
// Reads are called inside a read batch (read-batch.ts), which makes that look once for the requests
// of a turn: a request answered from the caches runs no statement of its own.
// A cached token keeps its expiry and is checked against the clock at every lookup, so it stops
// working at its expiry, not at the next look.
import { rowsToRead, toPage, type PlantPage, type PlantRow } from '../../pagination/page.js';
import type { TokenHash, TokenOwner } from '../plant-store.js';
import type { SqliteDatabase } from './database.js';
import { PageCache } from './page-cache.js';

type TokenRow = [id: number, user: string, expiresAt: string | null];

/** An active token's owner, and when it expires (ms since the epoch; Infinity: never). */
interface CachedToken {
  owner: TokenOwner;
  expiresAt: number;
}

/** Enough for the first pages of thousands of users, small next to the process. */
const PAGE_CACHE_BYTES = 4 * 1024 * 1024;
/** Active tokens remembered; past this many the memory is simply cleared. */
const TOKEN_CACHE_ENTRIES = 10_000;

function prepare(db: SqliteDatabase) {
  return {
    // `LIMIT ? + 0`, not `LIMIT ?`: SQLite's planner reads a bare LIMIT parameter, so binding it
    // expires the statement and every execution is prepared again (4 us of a 20-row page).
    firstPage: db.prepare('SELECT id, name, tag FROM plants WHERE owner = ? ORDER BY id LIMIT ? + 0').raw().safeIntegers(),
    nextPage: db.prepare('SELECT id, name, tag FROM plants WHERE owner = ? AND id > ? ORDER BY id LIMIT ? + 0').raw().safeIntegers(),
    /** Changes whenever another connection, in any process, has committed to the file. */
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    findToken: db.prepare('SELECT id, user, expires_at FROM tokens WHERE hash = ? AND revoked_at IS NULL').raw(),
  };
}

export class CachedReads {
  readonly pages = new PageCache(PAGE_CACHE_BYTES);
  /** Owners of tokens by hash. Unknown and revoked tokens are not kept: guesses cannot fill memory. */
  readonly #tokens = new Map<TokenHash, CachedToken>();
  readonly #sql: ReturnType<typeof prepare>;
  #version: unknown;

  constructor(db: SqliteDatabase) {
    this.#sql = prepare(db);
    this.#version = this.#sql.dataVersion.get();
  }

  /** Looks for commits by other connections since the last look; if there were, forgets everything. */
  observe(): void {
    const version = this.#sql.dataVersion.get();
    if (version === this.#version) return;
    this.#version = version;
    this.pages.clear();
    this.#tokens.clear();
  }

  /**
   * The owner of an active token, from the cache when it is there; as fresh as the last look.
   * Expiry is checked on every lookup, cached or not, against this process's clock (SQLite's own).
   */
  tokenOwner(hash: TokenHash): TokenOwner | undefined {
    let known = this.#tokens.get(hash);
    if (known === undefined) {
      const row = this.#sql.findToken.get(Buffer.from(hash, 'base64')) as TokenRow | undefined;
      if (row === undefined) return undefined;
      if (this.#tokens.size >= TOKEN_CACHE_ENTRIES) this.#tokens.clear();
      known = { owner: { tokenId: row[0], user: row[1] }, expiresAt: row[2] === null ? Infinity : Date.parse(row[2]) };
      this.#tokens.set(hash, known);
    }
    // Tokens that never expire, nearly all of them, skip the clock.
    if (known.expiresAt !== Infinity && Date.now() >= known.expiresAt) return undefined;
    return known.owner;
  }

  /** A first page from the cache, as fresh as the last look, if it is there. */
  cachedPage(owner: string, limit: number): PlantPage | undefined {
    return this.pages.get(owner, limit);
  }

  /** A page; a first page from the cache, which is as fresh as the last look. Later pages are read each time. */
  page(owner: string, after: bigint | undefined, limit: number): PlantPage {
    if (after !== undefined) return toPage(this.#sql.nextPage.all(owner, after, rowsToRead(limit)) as PlantRow[], limit);
    const cached = this.cachedPage(owner, limit);
    if (cached !== undefined) return cached;
    const page = toPage(this.#sql.firstPage.all(owner, rowsToRead(limit)) as PlantRow[], limit);
    this.pages.set(owner, limit, page);
    return page;
  }

  /** Called inside every delete of `owner`'s plants by this store, before it commits. */
  forget(owner: string): void {
    this.pages.forget(owner);
  }

  /**
   * Called inside a create of plant `id` by this store, before it commits. A first page that
   * is full and followed by more plants keeps the same plants and the same next cursor when the
   * new id sorts after its last one, so only pages the plant can land on are dropped.
   */
  created(owner: string, id: bigint): void {
    this.pages.forgetWhere(owner, (page) => page.lastId === undefined || id <= page.lastId);
  }

  /** Called inside every revocation by this store, before it commits. */
  forgetTokens(): void {
    this.#tokens.clear();
  }
}
