// Reads batched per turn of the event loop: the reads of the requests that arrived in one turn run
// together, after that turn's I/O, in one read transaction that starts with one look for commits by
// other connections. Each SQLite transaction costs file-lock system calls; a batch pays them once.
// A batch reads at most MAX_BATCH_ROWS rows; the reads past them run in the next one.
import type { CachedReads } from './cached-reads.js';
import type { SqliteDatabase } from './database.js';
import type { WalSync } from './wal-sync.js';

/**
 * Rows one batch reads at most, counted by what each read may return. A batch's answers all stay
 * alive until it ends (they are sent after it): uncapped, fifty requests for pages of 1,000 held
 * some 10 MB at once. Capped, a batch's answers are sent before the next batch reads; in the
 * benchmark's pages of 1,000, p99 fell from 324 to 75 ms and peak RSS from 252 to 190 MB.
 */
export const MAX_BATCH_ROWS = 2000;

interface Pending {
  read: () => unknown;
  /** Whether its answer may show a write only once it is durable (see `run`). */
  durableOnly: boolean;
  /** Rows it reads at most (MAX_BATCH_ROWS). */
  rows: number;
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
   * then allows commits, and is synced, after that commit). `rows`: the rows it reads at most; a
   * batch that would read more than MAX_BATCH_ROWS leaves the reads past it to a later batch (whose
   * look comes later still, so their answers stay linearizable).
   */
  run<T>(read: () => T, { durableOnly = true, rows = 1 }: { durableOnly?: boolean; rows?: number } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ read, durableOnly, rows, resolve: resolve as (value: unknown) => void, reject });
      // A read that must wait for the sync under way joins the flush already waiting for it.
      if (durableOnly && this.#waitingForSync) return;
      this.#schedule();
    });
  }

  /** A flush in the next check phase, unless one is due already. */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#flush();
    });
  }

  /** Cuts `batch` after the reads that fit in MAX_BATCH_ROWS (one at least); the rest go first in the next batch. */
  #capRows(batch: Pending[]): void {
    let rows = batch[0]!.rows;
    let end = 1;
    while (end < batch.length && rows + batch[end]!.rows <= MAX_BATCH_ROWS) rows += batch[end++]!.rows;
    if (end === batch.length) return;
    this.#queue = batch.splice(end).concat(this.#queue);
    this.#schedule();
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
    this.#capRows(batch);
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
