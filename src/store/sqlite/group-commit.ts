// Group commit: writes queued in the same turn of the event loop share one transaction
// and one fsync; each caller is answered only after that commit, with its own result.
// It runs in the writer thread (writer.ts), where waiting for the fsync stops no request.
import { DatabaseBusy, retryLater } from '../../errors.js';
import type { SqliteDatabase } from './database.js';

interface Pending {
  work: () => unknown;
  /** The work runs at most one statement that writes: SQLite undoes a failed statement itself, so it needs no savepoint. */
  oneStatement: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** performance.now() past which this write stops waiting for the write lock. */
  deadline: number;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const MAX_BATCH = 1000;
/** Longest a write waits for the write lock by default (WRITE_LOCK_TIMEOUT_MS). */
export const DEFAULT_LOCK_TIMEOUT_MS = 5000;
/**
 * Pauses between tries for a write lock another process holds: short at first, since another
 * instance's commit lasts a millisecond or two, then steady, so a long holder costs a try every 25 ms.
 */
const RETRY_DELAYS_MS = [1, 2, 5, 10, 20, 25];

const isBusy = (error: unknown) => String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY');

/** How the writer commits its writes. */
export interface WriteQueue {
  /**
   * Runs `work` inside a transaction; settles only after that transaction is committed. If `work`
   * throws, none of its changes is kept. `oneStatement`: it writes with one statement at most.
   */
  run<T>(work: () => T, oneStatement?: boolean): Promise<T>;
  /** Transactions committed so far. */
  readonly commits: number;
}

/** Told about each transaction, inside it: the commit sequence (commit-sequence.ts) and the commit reports. */
export interface TransactionHooks {
  /** The transaction holds the write lock; its writes come next. */
  begun(): void;
  /** Its writes are done; COMMIT comes next. */
  committing(): void;
  /** Committed, with this many writes. */
  committed(writes: number): void;
  /** Not committed: nothing of it is kept. Called before its rollback, while it still holds the lock. */
  failed(error: unknown): void;
}

const noHooks: TransactionHooks = { begun() {}, committing() {}, committed() {}, failed() {} };

export interface GroupCommitOptions {
  /** Longest a write waits for the write lock; then it is refused with DatabaseBusy (503) and changes nothing. */
  lockTimeoutMs?: number;
  hooks?: TransactionHooks;
}

export class GroupCommit implements WriteQueue {
  #queue: Pending[] = [];
  /** A flush is due: on the next turn, or after a pause while another process holds the lock. */
  #scheduled = false;
  /** Tries for the lock that found it taken, in a row. */
  #busyTries = 0;
  /** Transactions committed so far; tests read it to see writes share one. */
  commits = 0;
  readonly #db: SqliteDatabase;
  readonly #statements;
  readonly #lockTimeoutMs: number;
  readonly #hooks: TransactionHooks;

  constructor(db: SqliteDatabase, options: GroupCommitOptions = {}) {
    this.#db = db;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    this.#hooks = options.hooks ?? noHooks;
    this.#statements = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT op'),
      release: db.prepare('RELEASE op'),
      undo: db.prepare('ROLLBACK TO op'),
    };
  }

  run<T>(work: () => T, oneStatement = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({
        work,
        oneStatement,
        resolve: resolve as (value: unknown) => void,
        reject,
        deadline: performance.now() + this.#lockTimeoutMs,
      });
      // While a flush waits for the lock, new writes only join the queue: they commit after the
      // ones before them, in the order they came.
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
    if (this.#queue.length === 0) return;
    const { begin, rollback } = this.#statements;
    try {
      // The connection's busy_timeout is 0 (database.ts): when another process holds the lock this
      // fails at once instead of blocking the event loop, and the wait happens on timers below.
      begin.run();
    } catch (error) {
      if (isBusy(error)) {
        this.#waitForLock();
        return;
      }
      for (const pending of this.#queue.splice(0, MAX_BATCH)) pending.reject(error);
      this.#scheduleRest();
      return;
    }
    this.#busyTries = 0;
    const batch = this.#queue.splice(0, MAX_BATCH);
    this.#scheduleRest();
    let outcomes: Outcome[];
    try {
      this.#hooks.begun();
      outcomes = this.#commit(batch);
    } catch (error) {
      // A savepoint or COMMIT itself failed: nothing in this batch is durable.
      this.#hooks.failed(error);
      if (this.#db.inTransaction) rollback.run();
      for (const pending of batch) pending.reject(error);
      return;
    }
    this.#hooks.committed(batch.length);
    batch.forEach((pending, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
  }

  /**
   * The batch's writes, then COMMIT. One write's failure undoes only that write: by a savepoint around
   * it, or, for a single statement, by SQLite's undoing of that statement (a savepoint costs two more).
   */
  #commit(batch: Pending[]): Outcome[] {
    const { commit, savepoint, release, undo } = this.#statements;
    const outcomes: Outcome[] = [];
    for (const pending of batch) {
      if (pending.oneStatement) {
        try {
          outcomes.push({ ok: true, value: pending.work() });
        } catch (error) {
          // Some errors (a full disk, say) end the whole transaction: then the batch fails.
          if (!this.#db.inTransaction) throw error;
          outcomes.push({ ok: false, error });
        }
        continue;
      }
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
    this.#hooks.committing();
    commit.run();
    this.commits++;
    return outcomes;
  }

  #scheduleRest(): void {
    if (this.#queue.length === 0 || this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  /** Another process holds the write lock: writes past their bound give up, the rest try again after a pause. */
  #waitForLock(): void {
    const now = performance.now();
    // The queue is in arrival order and every write has the same bound, so the expired ones are at its head.
    while (this.#queue[0] !== undefined && this.#queue[0].deadline <= now) {
      const seconds = Math.max(1, Math.ceil(this.#lockTimeoutMs / 1000));
      this.#queue.shift()!.reject(retryLater(new DatabaseBusy(seconds), seconds));
    }
    if (this.#queue.length === 0) {
      this.#busyTries = 0;
      return;
    }
    const pause = RETRY_DELAYS_MS[Math.min(this.#busyTries++, RETRY_DELAYS_MS.length - 1)]!;
    this.#scheduled = true;
    // One last try exactly at the oldest write's deadline, before it gives up.
    setTimeout(() => this.#flush(), Math.min(pause, this.#queue[0]!.deadline - now));
  }
}
