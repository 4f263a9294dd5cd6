// The SQLite store: reads on this thread's connection through a per-request handle, writes by the
// writer thread's connection (writer.ts), by group commit, off the event loop.
import type { AddResult, PlantStore, Store, StoredPlant, TokenHash, TokenInfo } from '../plant-store.js';
import { CachedReads } from './cached-reads.js';
import { OwnCommits, readChangeCount, sharedCommitSequence } from './commit-sequence.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import { ReadBatch } from './read-batch.js';
import { SqliteRequestStore } from './request-store.js';
import { TokenUses, type TokenUsesOptions } from '../token-uses.js';
import type { WriteOp } from './write-ops.js';
import { besideThisModule, WriterThread } from './writer-thread.js';

function prepare(db: SqliteDatabase) {
  return {
    listTokens: db.prepare(
      'SELECT id, user, created_at AS createdAt, expires_at AS expiresAt, last_used_at AS lastUsedAt, revoked_at AS revokedAt FROM tokens ORDER BY id',
    ),
    countTokens: db.prepare('SELECT count(*) FROM tokens').pluck(),
    ping: db.prepare('SELECT 1 FROM plants LIMIT 1'),
  };
}

export interface SqliteStoreOptions {
  /**
   * The writer thread's entry: commit-worker.js (group commit) by default. The benchmark passes another,
   * one commit per request, to measure what group commit is worth.
   */
  writer?: URL;
  /** Longest a write waits for the write lock (WRITE_LOCK_TIMEOUT_MS); GroupCommit's default when absent. */
  lockTimeoutMs?: number | undefined;
  /** How token uses are batched (tests shorten the wait). */
  tokenUses?: Omit<TokenUsesOptions, 'now'>;
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly db: SqliteDatabase;
  readonly #sql: ReturnType<typeof prepare>;
  readonly writes: WriterThread;
  readonly reads: CachedReads;
  readonly readBatch: ReadBatch;
  readonly tokenUses: TokenUses;
  #closing: Promise<void> | undefined;

  /** Opens the store and waits for its writer thread to open the file too, so that start-up fails if it cannot. */
  static async open(path: string, options: SqliteStoreOptions = {}): Promise<SqliteStore> {
    const store = new SqliteStore(path, options);
    try {
      await store.writes.started;
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /** Writes made before the writer thread has started wait for it (`open` waits for it). */
  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.db = openDatabase(path);
    this.#sql = prepare(this.db);
    // The writer starts from the count this thread sees now (commit-sequence.ts).
    const count = readChangeCount(this.db)();
    const sequence = sharedCommitSequence(count);
    const ownCommits = new OwnCommits(sequence);
    this.writes = new WriterThread({
      entry: options.writer ?? besideThisModule('commit-worker', import.meta.url),
      path,
      sequence,
      lockTimeoutMs: options.lockTimeoutMs,
      written: (op, result) => this.#written(op, result),
      lost: () => this.reads.clear(),
    });
    const writes = this.writes;
    this.reads = new CachedReads(this.db, {
      only: (seen, now) => ownCommits.only(seen, now),
      isWriting: (owner) => writes.isWriting(owner),
      get revoking() {
        return writes.revoking;
      },
    }, count);
    this.readBatch = new ReadBatch(this.db, this.reads);
    // One write per batch, through the writer: it shares a commit with the plant writes of the moment.
    this.tokenUses = new TokenUses(
      async (uses) => {
        await this.writes.run({ kind: 'noteUses', uses: [...uses].map(([id, at]) => [id, new Date(at).toISOString()]) });
      },
      options.tokenUses,
    );
  }

  forRequest(): PlantStore {
    return new SqliteRequestStore(this.readBatch, this.reads, this, this.tokenUses);
  }

  /** A write is answered: the caches drop what it changed, before its caller hears of it. */
  #written(op: WriteOp, result: unknown): void {
    if (op.kind === 'addPlant' && result === 'created') this.reads.created(op.owner, op.id);
    else if (op.kind === 'deletePlant' && result === true) this.reads.forget(op.owner);
    else if (op.kind === 'revokeToken' && result === true) this.reads.forgetTokens();
  }

  /** The writes of every handle (SqliteRequestStore forwards them here). */
  addPlant(owner: string, plant: StoredPlant): Promise<AddResult> {
    return this.writes.run({ kind: 'addPlant', owner, id: plant.id, name: plant.name, tag: plant.tag ?? null });
  }

  deletePlant(owner: string, id: bigint): Promise<boolean> {
    return this.writes.run({ kind: 'deletePlant', owner, id });
  }

  addToken(user: string, hash: TokenHash, expiresAt: Date | null = null): Promise<number> {
    return this.writes.run({ kind: 'addToken', user, hash: Buffer.from(hash, 'base64'), expiresAt: expiresAt?.toISOString() ?? null });
  }

  async listTokens(): Promise<TokenInfo[]> {
    const now = Date.now(); // the clock CachedReads checks expiry against
    return (this.#sql.listTokens.all() as Array<Omit<TokenInfo, 'expired'>>).map((token) => ({
      ...token,
      expired: token.expiresAt !== null && Date.parse(token.expiresAt) <= now,
    }));
  }

  revokeToken(id: number): Promise<boolean> {
    return this.writes.run({ kind: 'revokeToken', id });
  }

  async countTokens(): Promise<number> {
    return this.#sql.countTokens.get() as number;
  }

  async isReady(): Promise<boolean> {
    if (!this.writes.running) return false;
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
      await this.writes.close();
      if (this.db.open) this.db.close();
    })();
    return this.#closing;
  }
}
