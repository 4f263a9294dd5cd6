// The write policy group commit is measured against: each write commits alone, as soon as it
// arrives, with synchronous=NORMAL (in WAL mode: no fsync per commit; a power cut may lose the
// last acknowledged writes). Plant Store never uses this; only the benchmark's comparison does.
import type { SqliteDatabase } from '../../src/store/sqlite/database.js';
import type { WriteQueue } from '../../src/store/sqlite/group-commit.js';

export class PerRequestCommit implements WriteQueue {
  commits = 0;
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    db.pragma('synchronous = NORMAL');
    this.#db = db;
  }

  run<T>(work: () => T): Promise<T> {
    try {
      const value = this.#db.transaction(work).immediate();
      this.commits++;
      return Promise.resolve(value);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
