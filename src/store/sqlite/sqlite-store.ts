// The SQLite store: statements prepared once, plain SQL, writes through group commit, reads through a per-request handle.
import type { AddResult, PlantStore, Store, StoredPlant, TokenHash, TokenInfo } from '../plant-store.js';
import { CachedReads } from './cached-reads.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import { GroupCommit, type WriteQueue } from './group-commit.js';
import { ReadBatch } from './read-batch.js';
import { SqliteRequestStore } from './request-store.js';
import { TokenUses, type TokenUsesOptions } from '../token-uses.js';
import { WalSync, type SyncFile } from './wal-sync.js';

function prepare(db: SqliteDatabase) {
  return {
    insert: db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING'),
    findOne: db.prepare('SELECT name, tag FROM plants WHERE owner = ? AND id = ?'),
    delete: db.prepare('DELETE FROM plants WHERE owner = ? AND id = ?'),
    addToken: db.prepare("INSERT INTO tokens (user, hash, created_at, expires_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ'), ?)"),
    listTokens: db.prepare(
      'SELECT id, user, created_at AS createdAt, expires_at AS expiresAt, last_used_at AS lastUsedAt, revoked_at AS revokedAt FROM tokens ORDER BY id',
    ),
    // Text comparison is time order: every time here has the same ISO form (strftime's %f and toISOString agree).
    noteUse: db.prepare('UPDATE tokens SET last_used_at = @at WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @at)'),
    revokeToken: db.prepare("UPDATE tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ') WHERE id = ? AND revoked_at IS NULL"),
    countTokens: db.prepare('SELECT count(*) FROM tokens').pluck(),
    ping: db.prepare('SELECT 1 FROM plants LIMIT 1'),
  };
}

/** The writes below change the file with one statement (the rest of each only reads or touches the cache). */
const ONE_STATEMENT = { oneStatement: true };

export interface SqliteStoreOptions {
  /**
   * How writes commit: group commit by default, waiting for the lock up to `lockTimeoutMs`.
   * The benchmark passes another, one commit per request, to measure what group commit is worth.
   */
  writes?: (db: SqliteDatabase) => WriteQueue;
  /** Longest a group-committed write waits for the write lock (WRITE_LOCK_TIMEOUT_MS); GroupCommit's default when absent. */
  lockTimeoutMs?: number | undefined;
  /** How the WAL file is synced after each group commit: fs.fdatasync by default (tests control its timing). */
  syncFile?: SyncFile;
  /** How token uses are batched (tests shorten the wait). */
  tokenUses?: Omit<TokenUsesOptions, 'now'>;
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly db: SqliteDatabase;
  readonly #sql: ReturnType<typeof prepare>;
  readonly writes: WriteQueue;
  readonly reads: CachedReads;
  readonly readBatch: ReadBatch;
  readonly tokenUses: TokenUses;
  /** Syncs group commits off the event loop; absent for an in-memory database and for other write policies. */
  readonly durability: WalSync | undefined;
  #closing: Promise<void> | undefined;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.db = openDatabase(path);
    this.#sql = prepare(this.db);
    this.durability = options.writes === undefined && !this.db.memory ? new WalSync(this.db, options.syncFile) : undefined;
    this.writes =
      options.writes?.(this.db) ?? new GroupCommit(this.db, { lockTimeoutMs: options.lockTimeoutMs, durability: this.durability });
    this.reads = new CachedReads(this.db);
    this.readBatch = new ReadBatch(this.db, this.reads, this.durability);
    // One transaction per batch, through the write queue: it shares a commit with the plant writes of the moment.
    // This connection's own commits do not change its data_version, so they drop nothing from its cache.
    this.tokenUses = new TokenUses(
      (uses) =>
        this.writes.run(() => {
          for (const [id, at] of uses) this.#sql.noteUse.run({ id, at: new Date(at).toISOString() });
        }),
      options.tokenUses,
    );
  }

  forRequest(): PlantStore {
    return new SqliteRequestStore(this.readBatch, this.reads, this, this.tokenUses);
  }

  /** The writes of every handle (SqliteRequestStore forwards them here). */
  addPlant(owner: string, plant: StoredPlant): Promise<AddResult> {
    const tag = plant.tag ?? null;
    return this.writes.run(() => {
      if (this.#sql.insert.run(owner, plant.id, plant.name, tag).changes === 1) {
        // Inside the write's transaction, synchronously: no read can see the cache in between.
        this.reads.created(owner, plant.id);
        return 'created';
      }
      const existing = this.#sql.findOne.get(owner, plant.id) as { name: string; tag: string | null };
      return existing.name === plant.name && existing.tag === tag ? 'unchanged' : 'conflict';
    }, ONE_STATEMENT);
  }

  deletePlant(owner: string, id: bigint): Promise<boolean> {
    return this.writes.run(() => {
      this.reads.forget(owner);
      return this.#sql.delete.run(owner, id).changes === 1;
    }, ONE_STATEMENT);
  }

  addToken(user: string, hash: TokenHash, expiresAt: Date | null = null): Promise<number> {
    const bytes = Buffer.from(hash, 'base64');
    const expires = expiresAt?.toISOString() ?? null;
    return this.writes.run(() => Number(this.#sql.addToken.run(user, bytes, expires).lastInsertRowid), ONE_STATEMENT);
  }

  async listTokens(): Promise<TokenInfo[]> {
    const now = Date.now(); // the clock CachedReads checks expiry against
    return (this.#sql.listTokens.all() as Array<Omit<TokenInfo, 'expired'>>).map((token) => ({
      ...token,
      expired: token.expiresAt !== null && Date.parse(token.expiresAt) <= now,
    }));
  }

  revokeToken(id: number): Promise<boolean> {
    return this.writes.run(() => {
      this.reads.forgetTokens(); // inside the write, like pages: no lookup can come in between
      return this.#sql.revokeToken.run(id).changes === 1;
    }, ONE_STATEMENT);
  }

  async countTokens(): Promise<number> {
    return this.#sql.countTokens.get() as number;
  }

  async isReady(): Promise<boolean> {
    if (this.durability?.failure !== undefined) return false;
    try {
      this.#sql.ping.get();
      return true;
    } catch {
      return false;
    }
  }

  /** Once, however often it is called: the uses not written yet, then the file. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.tokenUses.close();
      await this.durability?.synced();
      if (this.db.open) this.db.close();
      this.durability?.close();
    })();
    return this.#closing;
  }
}
