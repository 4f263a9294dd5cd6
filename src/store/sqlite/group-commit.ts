// Group commit: writes queued in the same turn of the event loop share one transaction
// and one sync; each caller is answered only after that commit is durable, with its own result.
import { AsyncResource } from 'node:async_hooks';
import { DatabaseBusy, retryLater } from '../../errors.js';
import { commits } from '../../observability/channels.js';
import type { SqliteDatabase } from './database.js';
import type { WalSync } from './wal-sync.js';

interface Pending {
  work: () => unknown;
  /** The work changes the file with one statement at most: no savepoint needed (see WriteQueue.run). */
  oneStatement: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** performance.now() past which this write stops waiting for the write lock. */
  deadline: number;
  /** The async context the write was queued in, kept only while someone listens to commits (see CommitContext). */
  queuedIn: AsyncResource | undefined;
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

/** How the store commits its writes. */
export interface WriteQueue {
  /**
   * Runs `work` inside a transaction; settles only after that transaction is committed. With
   * `oneStatement`, the work changes the file with at most one statement, whose failure SQLite
   * undoes by itself, so it needs no savepoint of its own.
   */
  run<T>(work: () => T, options?: { oneStatement?: boolean }): Promise<T>;
  /** Transactions committed so far. */
  readonly commits: number;
}

export interface GroupCommitOptions {
  /** Longest a write waits for the write lock; then it is refused with DatabaseBusy (503) and changes nothing. */
  lockTimeoutMs?: number;
  /**
   * Makes each commit durable off the event loop (wal-sync.ts); answers wait for it, and a batch
   * waits for the sync before it. Without it a write is answered when COMMIT returns, durable as
   * the connection's `synchronous` setting makes it.
   */
  durability?: WalSync | undefined;
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
  readonly #durability: WalSync | undefined;

  constructor(db: SqliteDatabase, options: GroupCommitOptions = {}) {
    this.#db = db;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    this.#durability = options.durability;
    this.#statements = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT op'),
      release: db.prepare('RELEASE op'),
      undo: db.prepare('ROLLBACK TO op'),
    };
  }

  run<T>(work: () => T, options: { oneStatement?: boolean } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({
        work,
        oneStatement: options.oneStatement === true,
        resolve: resolve as (value: unknown) => void,
        reject,
        deadline: performance.now() + this.#lockTimeoutMs,
        queuedIn: commits.hasSubscribers ? new AsyncResource('plant-store:queued-write') : undefined,
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
    const durability = this.#durability;
    if (durability?.failure !== undefined) {
      this.#scheduled = false;
      for (const pending of this.#queue.splice(0)) pending.reject(durability.failure);
      return;
    }
    // The last commit's sync is under way: this batch waits for it (and grows meanwhile).
    if (durability?.busy) {
      durability.commitWhenSynced(() => this.#flush());
      return;
    }
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
    let durable: Promise<Outcome[]>;
    try {
      durable = commits.hasSubscribers
        ? commits.tracePromise(() => this.#commitDurably(batch), {
            store: 'sqlite',
            batchSize: batch.length,
            queuedIn: batch.map((pending) => pending.queuedIn),
          })
        : this.#commitDurably(batch);
    } catch (error) {
      // A savepoint, COMMIT or the transaction itself failed: nothing in this batch is kept.
      if (this.#db.inTransaction) rollback.run();
      for (const pending of batch) pending.reject(error);
      return;
    }
    durable.then(
      (outcomes) => {
        batch.forEach((pending, index) => {
          const outcome = outcomes[index]!;
          if (outcome.ok) pending.resolve(outcome.value);
          else pending.reject(outcome.error);
        });
      },
      // The sync failed: the store has stopped (wal-sync.ts), and none of these writes is known to be on disk.
      (error: unknown) => {
        for (const pending of batch) pending.reject(error);
      },
    );
  }

  /** The batch committed (throws if that fails), then settles with its outcomes once the commit is durable. */
  #commitDurably(batch: Pending[]): Promise<Outcome[]> {
    const outcomes = this.#commit(batch);
    return this.#durability === undefined ? Promise.resolve(outcomes) : this.#durability.committed().then(() => outcomes);
  }

  /**
   * The batch's writes, then COMMIT. A write of several statements runs in a savepoint, so its
   * failure undoes only that write; SQLite undoes a failing single statement itself (1.5 to 3 µs
   * saved per write). An error that ends the whole transaction (disk full, I/O) fails the batch.
   */
  #commit(batch: Pending[]): Outcome[] {
    const { commit, savepoint, release, undo } = this.#statements;
    const outcomes: Outcome[] = [];
    for (const pending of batch) {
      if (pending.oneStatement) {
        try {
          outcomes.push({ ok: true, value: pending.work() });
        } catch (error) {
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
