// Reads batched per turn of the event loop: the reads of the requests that arrived in one turn run
// together, after that turn's I/O, in one read transaction that starts with one look for commits by
// other connections. Each SQLite transaction costs file-lock system calls; a batch pays them once.
import type { CachedReads } from './cached-reads.js';
import type { SqliteDatabase } from './database.js';
import type { WalSync } from './wal-sync.js';

interface Pending {
  read: () => unknown;
  /** Whether its answer may show a write only once it is durable (see `run`). */
  durableOnly: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class ReadBatch {
  #queue: Pending[] = [];
  /** A flush is due in the check phase. */
  #scheduled = false;
  /** A flush waits for the sync under way (WalSync.whenSynced) with the reads that must. */
  #waitingForSync = false;
  /** Batches run so far; tests read it to see reads share one. */
  batches = 0;
  readonly #reads: CachedReads;
  readonly #begin;
  readonly #end;
  readonly #durability: WalSync | undefined;

  /** With `durability`, reads wait while a commit waits for its sync, so none shows a write before it is durable. */
  constructor(db: SqliteDatabase, reads: CachedReads, durability?: WalSync) {
    this.#reads = reads;
    this.#durability = durability;
    this.#begin = db.prepare('BEGIN');
    this.#end = db.prepare('COMMIT');
  }

  /**
   * Runs `read` in the next batch. The batch starts in the check phase (setImmediate), after every
   * request whose bytes this turn read has arrived: its snapshot and its look come after each of
   * them arrived, so every answer reflects what any process had committed by then (linearizable).
   * While a commit of this store waits for its sync, a read waits for it too, unless `durableOnly`
   * is false: a token's owner, which shows the client nothing of the data (a token created or
   * revoked by a commit not yet durable is at worst honoured early or refused early; any write it
   * then allows commits, and is synced, after that commit).
   */
  run<T>(read: () => T, durableOnly = true): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ read, durableOnly, resolve: resolve as (value: unknown) => void, reject });
      // A read that must wait for the sync under way joins the flush already waiting for it.
      if (this.#scheduled || (durableOnly && this.#waitingForSync)) return;
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#flush();
      });
    });
  }

  #flush(): void {
    const durability = this.#durability;
    let batch = this.#queue;
    this.#queue = [];
    if (durability?.failure !== undefined) {
      for (const pending of batch) pending.reject(durability.failure);
      return;
    }
    if (durability?.busy) {
      // The reads that must see only durable writes wait for the sync (more join them meanwhile); the others go now.
      this.#queue = batch.filter((pending) => pending.durableOnly);
      batch = batch.filter((pending) => !pending.durableOnly);
      if (this.#queue.length > 0 && !this.#waitingForSync) {
        this.#waitingForSync = true;
        durability.whenSynced(() => {
          this.#waitingForSync = false;
          this.#flush();
        });
      }
    }
    if (batch.length === 0) return;
    this.batches++;
    let begun = false;
    try {
      // BEGIN takes no lock; the look (PRAGMA data_version) starts the read transaction, so the
      // snapshot every read of the batch sees is the one the look looked at.
      this.#begin.run();
      begun = true;
      this.#reads.observe();
    } catch (error) {
      if (begun) this.#end.run(); // only a transaction of its own
      for (const pending of batch) pending.reject(error);
      return;
    }
    for (const pending of batch) {
      try {
        pending.resolve(pending.read());
      } catch (error) {
        pending.reject(error);
      }
    }
    // A read transaction has nothing to write: COMMIT only ends it. Should it fail, the answers stand.
    try {
      this.#end.run();
    } catch {
      // the next BEGIN reports a connection that is still in a transaction
    }
  }
}
