// The SQLite engine: the one scheduler of every statement the store runs on its connection.
//
// Operations join one queue in the order they arrive. Once a turn of the event loop (in its check
// phase, after that turn's I/O) a round takes the queue: its reads run together in one read
// transaction, its writes together in one write transaction (group commit), and the WAL file is then
// synced on libuv's thread pool. What this promises:
//
// 1. Durable before acknowledged. A write is answered only after a sync of the WAL that began after
//    its COMMIT (the connection commits with synchronous=NORMAL, so COMMIT itself never waits for the
//    disk). While a sync runs, rounds run only the reads that answer from the caches (which hold what was
//    read before it, less what writes changed), so no answer shows a write before it is on disk; and a
//    failed sync stops the store before anything else is answered.
// 2. Linearizable. A round starts after every operation in it arrived, and its read transaction
//    starts with one look at PRAGMA data_version: when another connection (in any process) has
//    committed since the last look, the caches are dropped (`onForeignCommit`). So every answer
//    reflects every write acknowledged before its request arrived, here or by another process.
//    Writes of this store change the caches inside their own transaction. So once one read of a
//    request has run in a round, the caches answer its later reads as well as a round would; the
//    store's request handle does so at once (sqlite-store.ts, forRequest), unless the store stopped.
// 3. Never waiting on the event loop. The engine sets the connection's busy_timeout to 0: when another
//    process holds the write lock, writes stay queued (in their order) and try again on timers; past
//    their bound they are refused with 503 and Retry-After. Reads never wait for a writer (WAL).
//
// A write's failure undoes only that write, however many statements it has: the batch runs inside
// one savepoint, and a failing write is taken out and the rest run again.
import { AsyncResource } from 'node:async_hooks';
import { dirname } from 'node:path';
import { DatabaseBusy, inSeconds, retryLater } from '../../errors.js';
import { commits, storeCalls } from '../../channels.js';
import { syncToDisk, type SqliteDatabase } from './database.js';
import type { StoreLog } from '../plant-store.js';
import { StorageHealth } from './file-health.js';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { closeSync, fdatasync, openSync } = process.getBuiltinModule('node:fs');

/** Syncs a file's data to disk (fs.fdatasync; tests pass one whose timing they control). */
export type SyncFile = (fd: number, done: (error: Error | null) => void) => void;

/** Rows one round reads at most (what each read may return): a round holds the event loop until it ends. */
export const MAX_ROUND_ROWS = 2000;
/** Writes one transaction commits at most. */
const MAX_BATCH = 1000;
/** Pause between tries for a write lock another process holds: its commits last a millisecond or two. */
const LOCK_RETRY_MS = 2;

interface Operation {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Read = Omit<Operation, 'run'> & { kind: 'read'; run: (syncing: boolean) => unknown; rows: number; whileSyncing: boolean };

interface Write extends Operation {
  kind: 'write';
  /** performance.now() past which it stops waiting for the write lock. */
  deadline: number;
  /** Its request's async context, kept only while someone listens to commits (traces put the commit under it). */
  queuedIn: AsyncResource | undefined;
}

export interface EngineOptions {
  /** Longest a write waits for the write lock (WRITE_LOCK_TIMEOUT_MS); 5 s by default. */
  lockTimeoutMs?: number | undefined;
  syncFile?: SyncFile | undefined;
  /** Where a full disk or a damaged file is reported (the app's logger). */
  log?: StoreLog | undefined;
  /** Called inside a read transaction when another connection has committed since the last look. */
  onForeignCommit: () => void;
}

/** What a read run during a sync answers when the caches cannot answer it: it runs again after the sync. */
export const AFTER_SYNC = Symbol('after the sync');

const isBusy = (error: unknown) => String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY');

export class Engine {
  #queue: Array<Read | Write> = [];
  /** A round is due in the next check phase. */
  #scheduled = false;
  #syncing = false;
  /** Writes wait for another process's write lock until this timer fires. */
  #lockWait: NodeJS.Timeout | undefined;
  /** Set by a failed sync: nothing committed since the last good one can be trusted, so the store stops. */
  #failure: Error | undefined;
  #version: unknown;
  #lastSync: Promise<void> = Promise.resolve();
  readonly health: StorageHealth;
  readonly #db: SqliteDatabase;
  readonly #lockTimeoutMs: number;
  readonly #options: EngineOptions;
  /** The WAL file, synced after each commit; undefined for an in-memory database. */
  readonly #wal: number | undefined;
  readonly #sql;

  constructor(db: SqliteDatabase, options: EngineOptions) {
    this.#db = db;
    this.#options = options;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 5000;
    this.health = new StorageHealth(db.name, options.log);
    this.#sql = {
      begin: db.prepare('BEGIN'),
      beginImmediate: db.prepare('BEGIN IMMEDIATE'),
      savepoint: db.prepare('SAVEPOINT batch'),
      undo: db.prepare('ROLLBACK TO batch'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
    };
    this.#version = this.#sql.dataVersion.get();
    db.pragma('busy_timeout = 0');
    if (db.memory) return;
    db.pragma('synchronous = NORMAL'); // the WAL is synced below, off the event loop, instead
    this.#wal = openSync(`${db.name}-wal`, 'r'); // SQLite keeps the file while any connection is open
    // A new WAL file's name must survive a power cut too; SQLite would sync the folder at its first sync.
    syncToDisk(dirname(db.name));
  }

  /**
   * Runs `run` in the next round's read transaction; `rows`: the rows it reads at most. `whileSyncing`: it may run
   * during a sync, told so, to answer from the caches or AFTER_SYNC (guarantee 1).
   */
  read<T>(run: (syncing: boolean) => T | typeof AFTER_SYNC, rows = 1, whileSyncing = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ kind: 'read', run, rows, whileSyncing, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule(whileSyncing);
    });
  }

  /** Runs `run` in the next round's write transaction; settles once that transaction is on disk. */
  write<T>(run: () => T): Promise<T> {
    const deadline = performance.now() + this.#lockTimeoutMs;
    const queuedIn = storeCalls.hasSubscribers ? new AsyncResource('plant-store:queued-write') : undefined;
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ kind: 'write', run, resolve: resolve as (value: unknown) => void, reject, deadline, queuedIn });
      this.#schedule();
    });
  }

  /** A sync failed: the store answers nothing more (guarantee 1), not even from its caches. */
  get stopped(): boolean {
    return this.#failure !== undefined;
  }

  /** Once the sync under way (if any) has ended, closes the WAL file's handle; the connection is the store's. */
  async close(): Promise<void> {
    clearTimeout(this.#lockWait);
    await this.#lastSync.catch(() => undefined);
    if (this.#wal !== undefined) closeSync(this.#wal);
  }

  #schedule(evenWhileSyncing = false): void {
    if (this.#scheduled || (this.#syncing && !evenWhileSyncing)) return;
    this.#scheduled = true;
    setImmediate(() => this.#round());
  }

  #round(): void {
    this.#scheduled = false;
    if (this.#failure !== undefined) {
      for (const op of this.#queue.splice(0)) op.reject(this.#failure);
      return;
    }
    const reads: Read[] = [];
    const writes: Write[] = [];
    const later: Array<Read | Write> = [];
    let rows = 0;
    const syncing = this.#syncing;
    for (const op of this.#queue) {
      if (op.kind === 'read' && (!syncing || op.whileSyncing) && (reads.length === 0 || rows + op.rows <= MAX_ROUND_ROWS)) {
        reads.push(op);
        rows += op.rows;
      } else if (op.kind === 'write' && !syncing && this.#lockWait === undefined && writes.length < MAX_BATCH) writes.push(op);
      else later.push(op);
    }
    this.#queue = later;
    if (reads.length > 0) this.#runReads(reads);
    if (writes.length > 0) this.#runWrites(writes);
    // Reads past the row cap go in the next round, after this one's answers are sent; writes waiting
    // for another process's lock go when their timer fires.
    if (this.#lockWait === undefined ? this.#queue.length > 0 : this.#queue.some((op) => op.kind === 'read')) this.#schedule();
  }

  #runReads(reads: Read[]): void {
    let begun = false;
    try {
      // BEGIN takes no lock; the look starts the read transaction, so every read of the round sees
      // the snapshot the look looked at.
      this.#sql.begin.run();
      begun = true;
      const version = this.#sql.dataVersion.get();
      if (version !== this.#version) {
        this.#version = version;
        this.#options.onForeignCommit();
      }
    } catch (error) {
      if (begun && this.#db.inTransaction) this.#sql.rollback.run(); // only a transaction of its own
      for (const read of reads) read.reject(this.health.refuse(error));
      return;
    }
    for (const read of reads) {
      try {
        const value = read.run(this.#syncing);
        if (value !== AFTER_SYNC) read.resolve(value);
        else this.#queue.push({ ...read, whileSyncing: false }); // the sync's end schedules it
      } catch (error) {
        read.reject(this.health.refuse(error));
      }
    }
    // A read transaction has nothing to keep: ROLLBACK ends it, where COMMIT fails once damage is met.
    if (this.#db.inTransaction) this.#sql.rollback.run();
  }

  #runWrites(batch: Write[]): void {
    let durable: Promise<unknown[]>;
    try {
      this.health.checkFileInPlace();
      this.#sql.beginImmediate.run();
      durable = commits.hasSubscribers
        ? commits.tracePromise(() => this.#commit(batch), {
            store: 'sqlite',
            batchSize: batch.length,
            queuedIn: batch.map((write) => write.queuedIn),
          })
        : this.#commit(batch);
    } catch (error) {
      // A busy error outside a transaction is BEGIN's: another process holds the write lock (a busy COMMIT keeps
      // its transaction). Any other failure, of BEGIN, COMMIT or the batch (a full disk, say), keeps none of it.
      if (this.#db.inTransaction) this.#sql.rollback.run();
      else if (isBusy(error)) return this.#waitForLock(batch);
      for (const write of batch) write.reject(this.health.refuse(error));
      return;
    }
    durable.then(
      (values) => values.forEach((value, index) => batch[index]!.resolve(value)),
      (error: unknown) => batch.forEach((write) => write.reject(error)),
    );
  }

  /** Settles with the writes' values once their commit is synced; a failure that ends the transaction throws. */
  #commit(batch: Write[]): Promise<unknown[]> {
    this.#sql.savepoint.run();
    let values: unknown[] = [];
    for (let index = 0; index < batch.length; index++) {
      try {
        values.push(batch[index]!.run());
      } catch (error) {
        if (!this.#db.inTransaction) throw error;
        this.#sql.undo.run();
        batch.splice(index, 1)[0]!.reject(this.health.refuse(error));
        // The writes before it were undone with it: the rest run again, from the first.
        values = [];
        index = -1;
      }
    }
    this.#sql.commit.run();
    return this.#synced().then(() => values);
  }

  #synced(): Promise<void> {
    if (this.#wal === undefined) {
      this.health.wrote();
      return Promise.resolve();
    }
    const sync = this.#options.syncFile ?? fdatasync;
    this.#syncing = true;
    return (this.#lastSync = new Promise((resolve, reject) => {
      sync(this.#wal!, (error) => {
        this.#syncing = false;
        if (error !== null) {
          this.#failure ??= new Error(
            `the SQLite WAL file could not be synced to disk (${error.message}); restart Plant Store to recover from what is on disk`,
            { cause: error },
          );
        }
        if (this.#failure === undefined) {
          this.health.wrote();
          resolve();
        } else reject(this.#failure);
        if (this.#queue.length > 0) this.#schedule();
      });
    }));
  }

  /** Another process holds the write lock: writes past their bound give up, the rest try again after a pause. */
  #waitForLock(batch: Write[]): void {
    const now = performance.now();
    // Every write has the same bound and they are in arrival order: the expired ones come first.
    while (batch[0] !== undefined && batch[0].deadline <= now) {
      const seconds = Math.max(1, Math.ceil(this.#lockTimeoutMs / 1000));
      batch.shift()!.reject(retryLater(new DatabaseBusy(inSeconds(seconds)), seconds));
    }
    if (batch.length === 0) return;
    this.#queue = [...batch, ...this.#queue];
    // One last try exactly at the oldest write's deadline, before it gives up.
    const pause = Math.min(LOCK_RETRY_MS, batch[0]!.deadline - now);
    this.#lockWait = setTimeout(() => {
      this.#lockWait = undefined;
      this.#schedule();
    }, pause);
  }
}
