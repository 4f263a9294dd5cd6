// The SQLite store: statements prepared once, plain SQL, writes through group commit, reads through a per-request handle.
import type { AddResult, PlantStore, Store, StoredPlant, TokenHash, TokenInfo } from '../plant-store.js';
import { CachedReads } from './cached-reads.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import { GroupCommit, type WriteQueue } from './group-commit.js';
import { ReadBatch } from './read-batch.js';
import { SqliteRequestStore } from './request-store.js';

function prepare(db: SqliteDatabase) {
  return {
    insert: db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING'),
    findOne: db.prepare('SELECT name, tag FROM plants WHERE owner = ? AND id = ?'),
    delete: db.prepare('DELETE FROM plants WHERE owner = ? AND id = ?'),
    addToken: db.prepare("INSERT INTO tokens (user, hash, created_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ'))"),
    listTokens: db.prepare('SELECT id, user, created_at AS createdAt, revoked_at AS revokedAt FROM tokens ORDER BY id'),
    revokeToken: db.prepare("UPDATE tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ') WHERE id = ? AND revoked_at IS NULL"),
    countTokens: db.prepare('SELECT count(*) FROM tokens').pluck(),
    ping: db.prepare('SELECT 1 FROM plants LIMIT 1'),
  };
}

export interface SqliteStoreOptions {
  /**
   * How writes commit: group commit by default (open-store.ts gives it the configured lock timeout).
   * The benchmark passes another, one commit per request, to measure what group commit is worth.
   */
  writes?: (db: SqliteDatabase) => WriteQueue;
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly db: SqliteDatabase;
  readonly #sql: ReturnType<typeof prepare>;
  readonly writes: WriteQueue;
  readonly reads: CachedReads;
  readonly readBatch: ReadBatch;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.db = openDatabase(path);
    this.#sql = prepare(this.db);
    this.writes = options.writes?.(this.db) ?? new GroupCommit(this.db);
    this.reads = new CachedReads(this.db);
    this.readBatch = new ReadBatch(this.db, this.reads);
  }

  forRequest(): PlantStore {
    return new SqliteRequestStore(this.readBatch, this.reads, this);
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
    });
  }

  deletePlant(owner: string, id: bigint): Promise<boolean> {
    return this.writes.run(() => {
      this.reads.forget(owner);
      return this.#sql.delete.run(owner, id).changes === 1;
    });
  }

  addToken(user: string, hash: TokenHash): Promise<number> {
    const bytes = Buffer.from(hash, 'base64');
    return this.writes.run(() => Number(this.#sql.addToken.run(user, bytes).lastInsertRowid));
  }

  async listTokens(): Promise<TokenInfo[]> {
    return this.#sql.listTokens.all() as TokenInfo[];
  }

  revokeToken(id: number): Promise<boolean> {
    return this.writes.run(() => {
      this.reads.forgetTokens(); // inside the write, like pages: no lookup can come in between
      return this.#sql.revokeToken.run(id).changes === 1;
    });
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
