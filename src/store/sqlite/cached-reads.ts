// The reads a cache can answer, and when the cache may answer them. First pages (as JSON text)
// and the owners of active tokens are kept; this store's writes drop what they change, inside
// the write, and a commit by another connection in any process drops everything at the next
// look at PRAGMA data_version. In a server every SQLite statement costs microseconds (it is a
// read transaction with file-lock system calls, run with cold caches), so a cached request runs
// exactly one: that look.
import type { JsonPlantPage, ReadView, TokenOwner } from '../plant-store.js';
import type { SqliteDatabase } from './database.js';
import { PageCache } from './page-cache.js';

type JsonRow = [json: string, count: bigint, lastId: bigint | null];
type TokenRow = [id: number, user: string];

/** Enough for the first pages of thousands of users, small next to the process. */
const PAGE_CACHE_BYTES = 4 * 1024 * 1024;
/** Active tokens remembered; past this many the memory is simply cleared. */
const TOKEN_CACHE_ENTRIES = 10_000;

// `LIMIT ? + 0`, not `LIMIT ?`: SQLite's planner reads a bare LIMIT parameter, so binding it
// expires the statement and every execution is prepared again (4 us of a 20-row page).
export const PAGE = 'SELECT id, name, tag FROM plants WHERE owner = ? ORDER BY id LIMIT ? + 0';
export const PAGE_AFTER = 'SELECT id, name, tag FROM plants WHERE owner = ? AND id > ? ORDER BY id LIMIT ? + 0';
/** A page as the JSON text of a Plant array, built by SQLite: half the cost per row of handing rows to JavaScript. */
const asJson = (page: string) =>
  `SELECT json_group_array(CASE WHEN tag IS NULL THEN json_object('name', name) ELSE json_object('name', name, 'tag', tag) END), count(*), max(id) FROM (${page})`;

function prepare(db: SqliteDatabase) {
  return {
    firstJsonPage: db.prepare(asJson(PAGE)).raw().safeIntegers(),
    nextJsonPage: db.prepare(asJson(PAGE_AFTER)).raw().safeIntegers(),
    hasMore: db.prepare('SELECT 1 FROM plants WHERE owner = ? AND id > ? LIMIT 1').pluck(),
    /** Changes whenever another connection, in any process, has committed to the file. */
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
    findToken: db.prepare('SELECT id, user FROM tokens WHERE hash = ? AND revoked_at IS NULL').raw(),
  };
}

export class CachedReads {
  readonly pages = new PageCache(PAGE_CACHE_BYTES);
  /** Owners of active tokens by hash (as base64 text). Unknown tokens are not kept: guesses cannot fill memory. */
  readonly #tokens = new Map<string, TokenOwner>();
  readonly #sql: ReturnType<typeof prepare>;
  #version: unknown;

  constructor(db: SqliteDatabase) {
    this.#sql = prepare(db);
    this.#version = this.#sql.dataVersion.get();
  }

  /** Looks for commits by other connections since the last look; if there were, forgets everything. */
  observe(): void {
    this.#noteVersion(this.#sql.dataVersion.get());
  }

  #noteVersion(version: unknown): void {
    if (version === this.#version) return;
    this.#version = version;
    this.pages.clear();
    this.#tokens.clear();
  }

  /** The owner of an active token, from the cache when it is there; as fresh as the last look. */
  tokenOwner(hashText: string): TokenOwner | undefined {
    const known = this.#tokens.get(hashText);
    if (known !== undefined) return known;
    const row = this.#sql.findToken.get(Buffer.from(hashText, 'base64')) as TokenRow | undefined;
    if (row === undefined) return undefined;
    if (this.#tokens.size >= TOKEN_CACHE_ENTRIES) this.#tokens.clear();
    const owner = { tokenId: row[0], user: row[1] };
    this.#tokens.set(hashText, owner);
    return owner;
  }

  /** A page as JSON; a first page from the cache, which is as fresh as the last look. */
  jsonPage(owner: string, after: bigint | undefined, limit: number): JsonPlantPage {
    if (after !== undefined) return this.#query(owner, after, limit);
    const cached = this.pages.get(owner, limit);
    if (cached !== undefined) return cached;
    const page = this.#query(owner, undefined, limit);
    this.pages.set(owner, limit, page);
    return page;
  }

  /** Called inside every write of `owner`'s plants by this store, before it commits. */
  forget(owner: string): void {
    this.pages.forget(owner);
  }

  /**
   * Called inside a create of plant `id` by this store, before it commits. A first page that
   * is full and followed by more plants keeps the same plants and the same next link when the
   * new id sorts after its last one, so only pages the plant can land on are dropped.
   */
  created(owner: string, id: bigint): void {
    this.pages.forgetWhere(owner, (page) => page.lastId === undefined || id <= page.lastId);
  }

  /** Called inside every revocation by this store, before it commits. */
  forgetTokens(): void {
    this.#tokens.clear();
  }

  #query(owner: string, after: bigint | undefined, limit: number): JsonPlantPage {
    const [json, count, lastId] = (after === undefined ? this.#sql.firstJsonPage.get(owner, limit) : this.#sql.nextJsonPage.get(owner, after, limit)) as JsonRow;
    // A full page may be the last one; one probe tells.
    const more = Number(count) === limit && this.#sql.hasMore.get(owner, lastId) !== undefined;
    return more ? { json, lastId: lastId! } : { json };
  }
}

/**
 * One request's reads: the first of them looks for other writers, the rest trust that look.
 * The answers stay linearizable (the look happens after the request arrived, before it is
 * answered) for one statement per request instead of one per read.
 */
export class SqliteReadView implements ReadView {
  #looked = false;
  readonly #reads: CachedReads;

  constructor(reads: CachedReads) {
    this.#reads = reads;
  }

  #look(): void {
    if (this.#looked) return;
    this.#reads.observe();
    this.#looked = true;
  }

  findTokenByHashText(hash: string): TokenOwner | undefined {
    this.#look();
    return this.#reads.tokenOwner(hash);
  }

  listPlantsJson(owner: string, after: bigint | undefined, limit: number): JsonPlantPage {
    if (after === undefined) this.#look(); // later pages are not cached: the query is its own look
    return this.#reads.jsonPage(owner, after, limit);
  }
}
