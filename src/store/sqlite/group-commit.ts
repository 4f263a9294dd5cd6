// Group commit: writes queued in the same turn of the event loop share one transaction
// and one fsync; each caller is answered only after that commit, with its own result.
import type { SqliteDatabase } from './database.js';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 1000;

/** How the store commits its writes. */
export interface WriteQueue {
  /** Runs `work` inside a transaction; settles only after that transaction is committed. */
  run<T>(work: () => T): Promise<T>;
  /** Transactions committed so far. */
  readonly commits: number;
}

export class GroupCommit implements WriteQueue {
  #queue: Pending[] = [];
  #scheduled = false;
  /** Transactions committed so far; tests read it to see writes share one. */
  commits = 0;
  readonly #db: SqliteDatabase;
  readonly #statements;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#statements = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT op'),
      release: db.prepare('RELEASE op'),
      undo: db.prepare('ROLLBACK TO op'),
    };
  }

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // setImmediate runs after the pending I/O callbacks, so requests that arrived
        // together are all queued before the batch starts.
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#queue.splice(0, MAX_BATCH);
    if (this.#queue.length > 0) {
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    }
    const { begin, commit, rollback, savepoint, release, undo } = this.#statements;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      begin.run();
      for (const pending of batch) {
        // A savepoint per write: one write's failure undoes only that write.
        savepoint.run();
        try {
          outcomes.push({ ok: true, value: pending.work() });
          release.run();
        } catch (error) {
          undo.run();
          release.run();
          outcomes.push({ ok: false, error });
        }
      }
      commit.run();
      this.commits++;
    } catch (error) {
      // BEGIN, a savepoint or COMMIT itself failed: nothing in this batch is durable.
      if (this.#db.inTransaction) rollback.run();
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
  }
}
