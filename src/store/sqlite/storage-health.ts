// What the SQLite file allows now: a full disk, a damaged file, or a file deleted or replaced while open refuses
// with 503 and Retry-After, turns /readyz to 503, and is logged as an error naming the file, once (and again when it mends).
import type { Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DatabaseDamaged, DatabaseFileGone, DiskFull, inSeconds, retryLater } from '../../errors.js';
import type { Readiness } from '../plant-store.js';
import { isDamage } from './damage-checks.js';

/** Where the store reports what happens to its file (the app's logger; pino's signature). */
import type { StoreLog } from '../plant-store.js';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { statSync } = process.getBuiltinModule('node:fs');

const silent: StoreLog = { error: () => undefined, info: () => undefined };
/** Free space at which a disk that was full counts as writable again: room for a few hundred WAL frames. */
const MIN_ROOM_BYTES = 1024 * 1024;
const RETRY_SECONDS = 30;

export class StorageHealth {
  #full = false;
  #damaged = false;
  #gone = false;
  readonly #file: string;
  /** The file this process opened; undefined in memory. */
  readonly #opened: Stats | undefined;
  readonly #log: StoreLog;

  constructor(file: string, log: StoreLog = silent) {
    this.#file = file === ':memory:' ? file : resolve(file);
    this.#opened = file === ':memory:' ? undefined : statSync(this.#file);
    this.#log = log;
  }

  /**
   * Throws a 503 when the path no longer names the file this process opened (deleted, or replaced by a restore or
   * another process's new file): SQLite would go on writing to the unlinked file, and every write it acknowledged
   * would be lost when this process stops. One stat a commit: microseconds beside the commit's sync.
   */
  checkFileInPlace(): void {
    if (this.#opened === undefined) return;
    if (!this.#gone) {
      const now = statSync(this.#file, { throwIfNoEntry: false });
      if (now !== undefined && now.ino === this.#opened.ino && now.dev === this.#opened.dev) return;
      this.#gone = true;
      this.#log.error(
        { file: this.#file },
        `the database file ${this.#file} was ${now === undefined ? 'deleted' : 'replaced'} while in use: writes and /readyz answer ` +
          `503 until Plant Store is restarted. The file it had open stays readable while this process runs: copy it, with its -wal, ` +
          `from the "(deleted)" entries of ls -l /proc/${process.pid}/fd before stopping it (docs/operations.md)`,
      );
    }
    throw retryLater(new DatabaseFileGone(inSeconds(RETRY_SECONDS)), RETRY_SECONDS);
  }

  /** The error a request is given for `error`: a full disk or a damaged file become a 503; anything else stays as it is. */
  refuse(error: unknown): unknown {
    if ((error as { code?: unknown } | null)?.code === 'SQLITE_FULL') {
      if (!this.#full) {
        this.#log.error({ file: this.#file, err: error }, `the disk holding ${this.#file} is full: writes answer 503 until there is room`);
      }
      this.#full = true;
      return retryLater(new DiskFull(inSeconds(RETRY_SECONDS)), RETRY_SECONDS);
    }
    if (isDamage(error)) {
      if (!this.#damaged) {
        this.#log.error(
          { file: this.#file, err: error },
          `the database file ${this.#file} is damaged (${(error as Error).message}): answering 503; ` +
            `stop Plant Store and restore a backup, or rebuild the file with sqlite3's .recover (docs/reliability.md)`,
        );
      }
      this.#damaged = true;
      return retryLater(new DatabaseDamaged(inSeconds(RETRY_SECONDS)), RETRY_SECONDS);
    }
    return error;
  }

  /** A write reached the disk: a disk that was full has room again. */
  wrote(): void {
    if (!this.#full) return;
    this.#full = false;
    this.#log.info({ file: this.#file }, `writes to ${this.#file} succeed again`);
  }

  /** Not ready while the file is damaged or not the one opened any more, or while its disk is still full: which. */
  async readiness(): Promise<Readiness> {
    if (this.#damaged) return 'damaged';
    try {
      this.checkFileInPlace();
    } catch {
      return 'file-gone';
    }
    if (!this.#full) return 'ready';
    // Taken here, on a readiness check, not at load: node:fs/promises loads readline and more.
    const { statfs } = process.getBuiltinModule('node:fs/promises');
    const { bavail, bsize } = await statfs(dirname(this.#file));
    return bavail * bsize >= MIN_ROOM_BYTES ? 'ready' : 'disk-full';
  }
}
