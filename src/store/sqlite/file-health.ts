// The SQLite file's health: damage found at start-up (a bounded check) or by `plant-store check` (a full one), said with
// the file and how to recover (docs/operations.md); and, while serving, a full disk, a damaged file, or a file deleted or
// replaced while open, refused with 503 and Retry-After, turning /readyz to 503, logged once (and again when it mends).
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DatabaseDamaged, DatabaseFileGone, DiskFull, inSeconds, retryLater } from '../../errors.js';
import type { Readiness, StoreLog } from '../plant-store.js';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { existsSync, linkSync, mkdtempSync, rmSync, statSync } = process.getBuiltinModule('node:fs');

/** Pages start-up's check reads whole (128 MiB of 4 KiB pages; docs/reliability.md); a larger file, all but `plants`. */
const QUICK_CHECK_PAGE_LIMIT = 32_768;
/** Free space at which a disk that was full counts as writable again: room for a few hundred WAL frames. */
const MIN_ROOM_BYTES = 1024 * 1024;
const RETRY_SECONDS = 30;

/** SQLite's answers for a file that is not a database (a bad header), or a damaged one (truncated, damaged pages). */
function isDamage(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code);
  return code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT');
}

/** Runs `use` on a read-only connection of its own to the file, closed after. */
export function readOnly<T>(path: string, use: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return use(db);
  } finally {
    db.close();
  }
}

/** The problems a check pragma (quick_check, integrity_check) reports: its rows but 'ok'. */
export function checkProblems(db: Database.Database, pragma: string): string[] {
  const rows = db.pragma(pragma) as Array<Record<string, string>>;
  return rows.map((row) => Object.values(row)[0]!).filter((text) => text !== 'ok');
}

/** A damaged file, said with its path, what is wrong, and how to recover. */
class DamagedDatabase extends Error {
  constructor(path: string, problem: string, options?: ErrorOptions) {
    const file = resolve(path);
    super(
      `the SQLite database ${file} is damaged: ${problem}. Plant Store does not start on a damaged file. To recover, stop ` +
        `every process using it, then restore your latest backup, or save what is readable with the sqlite3 command: ` +
        `sqlite3 ${file} .recover | sqlite3 recovered.db, then point DATABASE_PATH at recovered.db (docs/operations.md)`,
      options,
    );
  }
}

/**
 * A whole file read with a -wal that is not its own: left by a crashed run beside a file since replaced (a backup
 * copied over it). SQLite reads the -wal's pages as the file's, so it looks damaged; restoring a backup again would not help.
 */
export class StaleWal extends Error {
  constructor(path: string, problem: string, options?: ErrorOptions) {
    const file = resolve(path);
    super(
      `the SQLite database ${file} reads as damaged (${problem}) only with the ${file}-wal beside it: the file alone is whole, so ` +
        `that -wal is not its own (left by an earlier run, before the file was replaced, e.g. by copying a backup over it). ` +
        `To recover, stop every process using it, then move ${file}-wal and ${file}-shm aside (keep them) and start again; ` +
        `plant-store restore does this for you (docs/operations.md, "Backups and restores")`,
      options,
    );
  }
}

/**
 * Whether the file at `path` passes quick_check read without its -wal: through a hard link (the same file, never
 * written: opened read-only) in a private folder beside it, where SQLite finds no -wal. False when it cannot tell.
 */
export function wholeWithoutWal(path: string): boolean {
  const wal = `${resolve(path)}-wal`;
  if (!existsSync(wal) || statSync(wal).size === 0) return false;
  let folder: string | undefined;
  try {
    folder = mkdtempSync(join(dirname(resolve(path)), '.plant-store-wal-check-'));
    linkSync(path, join(folder, 'alone.db'));
    return readOnly(join(folder, 'alone.db'), (db) => checkProblems(db, 'quick_check').length === 0);
  } catch {
    return false;
  } finally {
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  }
}

/** The error for a file found damaged: a StaleWal when the -wal beside it is the cause, else a DamagedDatabase. */
function damage(path: string, problem: string, options?: ErrorOptions): Error {
  return wholeWithoutWal(path) ? new StaleWal(path, problem, options) : new DamagedDatabase(path, problem, options);
}

/** `error` met while opening the file: a DamagedDatabase (or StaleWal) when it says the file is damaged, else as it is. */
export function damagedOr(path: string, error: unknown): unknown {
  if (!isDamage(error) || error instanceof DamagedDatabase || error instanceof StaleWal) return error;
  return damage(path, (error as Error).message, { cause: error });
}

/**
 * Throws a DamagedDatabase when quick_check finds problems. On a connection of its own: the pages it reads stay out of
 * the service connection's cache, where a page stays trusted until a checkpoint (test/reliability/damaged-file.test.ts).
 */
export function quickCheck(path: string): void {
  try {
    readOnly(path, (db) => {
      // Start-up only: another process may be making the same new file (switching it to WAL, migrating it).
      db.pragma('busy_timeout = 5000');
      const pages = db.pragma('page_count', { simple: true }) as number;
      const tables =
        pages <= QUICK_CHECK_PAGE_LIMIT
          ? [undefined]
          : (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name <> 'plants'").pluck().all() as string[]);
      // At most 5 problems: enough to say what is wrong, without reading on through a badly damaged file.
      const problems = tables.flatMap((table) =>
        checkProblems(db, table === undefined ? 'quick_check(5)' : `quick_check("${table.replaceAll('"', '""')}")`),
      );
      if (problems.length > 0) throw damage(path, problems.join('; '));
    });
  } catch (error) {
    throw damagedOr(path, error);
  }
}

/** PRAGMA integrity_check, all of it (`plant-store check`): the problems found in the file, none: []. */
export function integrityCheck(path: string): string[] {
  try {
    return readOnly(path, (db) => checkProblems(db, 'integrity_check'));
  } catch (error) {
    if (isDamage(error)) return [(error as Error).message];
    throw new Error(`cannot open the SQLite database ${resolve(path)}: ${(error as Error).message}`, { cause: error });
  }
}

/** What the file allows now, for the engine: each write checks the file is in place, each failure is refused by `refuse`. */
export class StorageHealth {
  #full = false;
  #damaged = false;
  #gone = false;
  readonly #file: string;
  /** The file this process opened; undefined in memory. */
  readonly #opened: { ino: number; dev: number } | undefined;
  readonly #log: StoreLog | undefined;

  constructor(file: string, log?: StoreLog) {
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
      this.#log?.error(
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
        this.#log?.error({ file: this.#file, err: error }, `the disk holding ${this.#file} is full: writes answer 503 until there is room`);
      }
      this.#full = true;
      return retryLater(new DiskFull(inSeconds(RETRY_SECONDS)), RETRY_SECONDS);
    }
    if (isDamage(error)) {
      if (!this.#damaged) {
        this.#log?.error(
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
    this.#log?.info({ file: this.#file }, `writes to ${this.#file} succeed again`);
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
