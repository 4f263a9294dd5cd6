// Opens the SQLite file durably (WAL, synchronous=FULL) and brings its schema up to date, or refuses naming why: the
// remains of a deleted database, or what stops this process writing the file (SQLite says only "disk I/O error" or
// "unable to open database file", so the folder and the disk are asked).
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { damagedOr, quickCheck, readOnly } from './file-health.js';
import type { StoreLog } from '../plant-store.js';
import { logMigration, refuseNewer, type AppliedMigration } from '../migration-log.js';
import { migrations } from './migrations.js';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { accessSync, closeSync, constants, existsSync, fsyncSync, mkdirSync, openSync, statSync, statfsSync } =
  process.getBuiltinModule('node:fs');

/** The side files SQLite keeps beside a database in WAL mode. */
export const SIDE_FILES = ['-wal', '-shm'] as const;
/** Free space under which a failed first write is put down to a full disk: a new file needs a few pages and its WAL. */
const FULL_BELOW_BYTES = 256 * 1024;
/** SQLite's answers that a missing room or right can cause (SQLITE_IOERR_WRITE, SQLITE_CANTOPEN, SQLITE_READONLY_DIRECTORY...). */
const STORAGE_CODES = /^SQLITE_(FULL|IOERR|CANTOPEN|READONLY)/;

export type SqliteDatabase = Database.Database;

/** Applies the pending migrations; each one applied is logged (from, to, milliseconds). */
export function migrate(db: SqliteDatabase, log?: StoreLog): void {
  // One IMMEDIATE transaction reads the version and applies what is pending: processes opening one new
  // file at once (instances starting together) apply each migration once, and no file stops halfway.
  const applied = db
    .transaction(() => {
      const current = db.pragma('user_version', { simple: true }) as number;
      refuseNewer(current, migrations.length);
      const steps: AppliedMigration[] = [];
      for (let version = current; version < migrations.length; version++) {
        const started = performance.now();
        db.exec(migrations[version]!);
        steps.push({ from: version, to: version + 1, ms: Math.round((performance.now() - started) * 100) / 100 });
      }
      if (steps.length > 0) db.pragma(`user_version = ${migrations.length}`);
      return steps;
    })
    .immediate();
  // Logged once committed: a migration rolled back was not applied.
  for (const step of applied) logMigration(log, 'SQLite', step);
}

/**
 * Switches the file to WAL. On a new file another process may be switching it at the same moment,
 * and SQLite then answers SQLITE_BUSY at once, without waiting out busy_timeout (the waiting could
 * deadlock): so wait here, a few milliseconds at a time, up to `timeoutMs`.
 */
function useWal(db: SqliteDatabase, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 5); // start-up only: blocking the thread is fine here
    }
  }
}

/** Syncs a file or a folder to disk: the rename of a synced file into a synced folder survives a crash. */
export function syncToDisk(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The file's schema version, read without changing anything; undefined when there is no file. */
export function sqliteSchemaVersion(path: string): number | undefined {
  if (!existsSync(path)) return undefined;
  return readOnly(path, (db) => {
    db.pragma('busy_timeout = 5000');
    return db.pragma('user_version', { simple: true }) as number;
  });
}

/**
 * Throws, naming them and what to do, when `path` does not exist but its -wal or -shm does: the remains of a database
 * whose file is gone. Nothing opens a new, empty database over them (the old tokens would fail and a new bootstrap token
 * appear, with `check` saying ok).
 */
export function refuseRemains(path: string): void {
  if (path === ':memory:') return;
  const file = resolve(path);
  if (existsSync(file)) return;
  const found = SIDE_FILES.map((suffix) => `${file}${suffix}`).filter((side) => existsSync(side));
  if (found.length === 0) return;
  const listed = found.map((side) => `${side} (${statSync(side).size} bytes)`).join(' and ');
  throw new Error(
    `there is no SQLite database at ${file}, but ${listed} ${found.length === 1 ? 'is' : 'are'} there: the remains of a database ` +
      `whose file was deleted or moved. Plant Store does not create a new database over them. Put the database file back ` +
      `(plant-store restore <backup> puts a backup in place), or, to really start empty, move ${found.join(' and ')} aside ` +
      `(docs/operations.md, "Backups and restores")`,
  );
}

function cannotOpen(path: string, problem: string, cause?: unknown): Error {
  return new Error(`cannot open the SQLite database ${resolve(path)}: ${problem}`, { cause });
}

/**
 * What stops this process writing `path` (the file when it exists; its folder, where a new file and the WAL go), or
 * undefined when nothing does. `onlyTheFile`: the file alone, neither its folder nor free space (a file that is only
 * opened: reads go on on a full disk).
 */
function writeProblem(path: string, onlyTheFile = false): string | undefined {
  const file = resolve(path);
  const folder = dirname(file);
  for (const target of onlyTheFile ? [file] : existsSync(file) ? [file, folder] : [folder]) {
    try {
      accessSync(target, constants.W_OK);
    } catch (error) {
      const what = target === file ? 'it' : `its folder ${folder}`;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EROFS')
        return `${what} is on a read-only file system (EROFS); mount it read-write or set DATABASE_PATH to a writable place`;
      if (code === 'EACCES' || code === 'EPERM') {
        const uid = process.getuid?.();
        return `this process may not write to ${what} (permission denied, ${code}${uid === undefined ? '' : `, uid ${uid}`}): change its owner or mode, or set DATABASE_PATH to a writable place`;
      }
    }
  }
  if (onlyTheFile) return undefined;
  try {
    const { bavail, bsize } = statfsSync(folder);
    if (bavail * bsize < FULL_BELOW_BYTES)
      return `no space left on the disk holding it (${bavail * bsize} bytes free, ENOSPC); free some space and start again`;
  } catch {
    // the folder cannot even be examined: SQLite's own words are all there is
  }
  return undefined;
}

/**
 * `error`, met while opening or first writing the file, said with the file and its cause when the cause is a full
 * disk, a read-only file system or a permission; any other error is returned as it is.
 */
function explainOpenFailure(path: string, error: unknown): unknown {
  const code = String((error as { code?: unknown } | null)?.code);
  const problem = path === ':memory:' || !STORAGE_CODES.test(code) ? undefined : writeProblem(path);
  return problem === undefined ? error : cannotOpen(path, `${problem} (SQLite said "${(error as Error).message}")`, error);
}

export function openDatabase(path: string, log?: StoreLog): SqliteDatabase {
  refuseRemains(path);
  if (path !== ':memory:') {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (error) {
      throw cannotOpen(path, `cannot make its folder (${(error as Error).message})`, error);
    }
  }
  let db: SqliteDatabase;
  try {
    db = new Database(path);
  } catch (error) {
    // better-sqlite3 says "unable to open database file" without the path: this says which and why.
    if (existsSync(path) && statSync(path).isDirectory()) throw cannotOpen(path, 'it is a folder; DATABASE_PATH must name a file', error);
    const explained = explainOpenFailure(path, error);
    throw explained !== error ? explained : cannotOpen(path, (error as Error).message, error);
  }
  try {
    // SQLite opens a file this process may not write read-only, without a word: the service would start, say
    // it is ready, and answer every write 500.
    const problem = path === ':memory:' ? undefined : writeProblem(path, true);
    if (problem !== undefined) throw cannotOpen(path, problem);
    // Opening may wait for another process (start-up only, so blocking is fine): migrations take the write lock.
    db.pragma('busy_timeout = 5000');
    if (path !== ':memory:') quickCheck(path); // before WAL and migrations: nothing is written to a damaged file
    useWal(db, 5000);
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db, log);
  } catch (error) {
    db.close();
    throw damagedOr(path, explainOpenFailure(path, error));
  }
  return db;
}
