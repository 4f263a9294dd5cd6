// Durability off the event loop. better-sqlite3 is synchronous, so with synchronous=FULL every
// COMMIT stopped the event loop for the disk's sync (about 1 ms). Instead, commits are made with
// synchronous=NORMAL (in WAL mode: no sync in COMMIT), and the WAL file is then synced on libuv's
// thread pool. A write is answered only after a sync that began after its COMMIT, as FULL would.
// While a sync is under way, this process's reads and next commits wait for it: no read here sees
// a write before it is durable, and a sync failure is seen before anything else is.
import { closeSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SqliteDatabase } from './database.js';

/** Syncs a file's data to disk (fs.fdatasync; tests pass one whose timing they control). */
export type SyncFile = (fd: number, done: (error: Error | null) => void) => void;

interface Synced {
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class WalSync {
  readonly #fd: number;
  readonly #syncFile: SyncFile;
  /** Commits made since the sync under way began: the next sync covers them. */
  #unsynced: Synced[] = [];
  #syncing = false;
  /** Reads waiting until no commit is waiting for its sync. */
  #reads: Array<() => void> = [];
  /** The group commit's next batch, waiting likewise; it goes after the reads, so writes cannot starve them. */
  #nextCommit: (() => void) | undefined;
  /** Set by a failed sync: nothing committed since the last good one can be trusted, so the store stops. */
  #failure: Error | undefined;

  constructor(db: SqliteDatabase, syncFile: SyncFile = fdatasync) {
    this.#syncFile = syncFile;
    // The WAL's own sync now: SQLite still syncs it before each checkpoint.
    db.pragma('synchronous = NORMAL');
    // The file SQLite opened in WAL mode (database.ts), which it keeps while any connection is open.
    this.#fd = openSync(`${db.name}-wal`, 'r');
    // A new WAL file's name must survive a power cut too; SQLite would sync the folder at its first sync.
    const folder = openSync(dirname(db.name), 'r');
    try {
      fsyncSync(folder);
    } finally {
      closeSync(folder);
    }
  }

  /** Why the store stopped, if a sync failed. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** True while a commit waits for its sync: a read or commit now must wait (`whenSynced`). */
  get busy(): boolean {
    return this.#syncing || this.#unsynced.length > 0;
  }

  /** Settles once a sync that begins after this call is done. Called right after each COMMIT. */
  committed(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#unsynced.push({ resolve, reject });
      if (!this.#syncing) this.#sync();
    });
  }

  /** Runs `read` once nothing committed is waiting for its sync; at once if nothing is. */
  whenSynced(read: () => void): void {
    if (this.busy) this.#reads.push(read);
    else read();
  }

  /** Runs `commit` once nothing committed is waiting for its sync, after the reads waiting then. */
  commitWhenSynced(commit: () => void): void {
    if (this.busy) this.#nextCommit = commit;
    else commit();
  }

  /** Settles once no commit waits for its sync (before closing). */
  synced(): Promise<void> {
    return new Promise((resolve) => this.whenSynced(resolve));
  }

  /** Closes the WAL file's handle (the database's own connection keeps the file). */
  close(): void {
    closeSync(this.#fd);
  }

  #sync(): void {
    this.#syncing = true;
    const covered = this.#unsynced;
    this.#unsynced = [];
    this.#syncFile(this.#fd, (error) => {
      this.#syncing = false;
      if (error !== null) {
        this.#failure ??= new Error(
          `the SQLite WAL file could not be synced to disk (${error.message}); restart Plant Store to recover from what is on disk`,
          { cause: error },
        );
      }
      if (this.#failure !== undefined) {
        for (const commit of [...covered, ...this.#unsynced.splice(0)]) commit.reject(this.#failure);
      } else {
        for (const commit of covered) commit.resolve();
        // Commits made while this sync ran get one of their own before anything waiting goes on.
        if (this.#unsynced.length > 0) {
          this.#sync();
          return;
        }
      }
      this.#release();
    });
  }

  #release(): void {
    const reads = this.#reads.splice(0);
    const commit = this.#nextCommit;
    this.#nextCommit = undefined;
    if (reads.length === 0 && commit === undefined) return;
    // In the check phase, after this turn's I/O, where the read batch and group commit run.
    setImmediate(() => {
      for (const read of reads) read();
      commit?.();
    });
  }
}
