// Opens the SQLite file durably (WAL, synchronous=FULL) and brings its schema up to date. The store's
// connection then makes its commits durable off the event loop instead (engine.ts).
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { migrations } from './migrations.js';

export type SqliteDatabase = Database.Database;

export function migrate(db: SqliteDatabase, target = migrations.length): void {
  // The version is read inside each IMMEDIATE transaction: processes opening one new file at
  // once (instances starting together) then apply each migration once, one after the other.
  const step = db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > migrations.length) {
      throw new Error(
        `the database is at schema version ${current}, newer than this Plant Store (${migrations.length}); upgrade Plant Store`,
      );
    }
    if (current >= target) return false;
    db.exec(migrations[current]!);
    db.pragma(`user_version = ${current + 1}`);
    return true;
  });
  while (step.immediate()) {
    // one migration applied; look again
  }
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

/** better-sqlite3 says "unable to open database file" without the path; this says which and why. */
function openFile(path: string): SqliteDatabase {
  try {
    return new Database(path);
  } catch (error) {
    const reason = isFolder(path) ? 'it is a folder; DATABASE_PATH must name a file' : (error as Error).message;
    throw new Error(`cannot open the SQLite database ${resolve(path)}: ${reason}`, { cause: error });
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The start-up check reads every page of a file up to this many (128 MiB of 4 KiB pages): PRAGMA quick_check
 * costs about 25 to 75 ms per 1,000 pages, 0.3 to 1 s on the benchmark's 1,000,000-row file (13,061 pages;
 * docs/reliability.md). A larger file has its schema and every table but `plants` checked at start, so start-up
 * stays bounded; `plant-store check` reads it all.
 */
export const QUICK_CHECK_PAGE_LIMIT = 32_768;

/** SQLite's answers for a file that is not a database, or a damaged one. */
const DAMAGED = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);

/** A damaged file, said with its path, what is wrong, and how to recover (docs/operations.md). */
export class DamagedDatabase extends Error {
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
 * quick_check over the whole file, or within QUICK_CHECK_PAGE_LIMIT; the problems it found (none: []).
 * On a connection of its own, closed after: the pages it reads stay out of the service connection's
 * page cache (in WAL mode a cached page stays trusted until a checkpoint, so damage under the running
 * service would otherwise go unseen by it; test/reliability/damaged-file.test.ts).
 */
function quickCheck(path: string): string[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const pages = db.pragma('page_count', { simple: true }) as number;
    const tables =
      pages <= QUICK_CHECK_PAGE_LIMIT
        ? [undefined]
        : (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name <> 'plants'").pluck().all() as string[]);
    const problems: string[] = [];
    for (const table of tables) {
      // At most 5 problems: enough to say what is wrong, without reading on through a badly damaged file.
      const rows = db.pragma(table === undefined ? 'quick_check(5)' : `quick_check("${table.replaceAll('"', '""')}")`, {
        simple: false,
      }) as Array<{ quick_check: string }>;
      problems.push(...rows.map((row) => row.quick_check).filter((text) => text !== 'ok'));
    }
    return problems;
  } finally {
    db.close();
  }
}

/** PRAGMA integrity_check, all of it (`plant-store check`): the problems found in the file, none: []. */
export function integrityCheck(path: string): string[] {
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    return rows.map((row) => row.integrity_check).filter((text) => text !== 'ok');
  } catch (error) {
    if (DAMAGED.has((error as { code?: string }).code ?? '')) return [(error as Error).message];
    throw new Error(`cannot open the SQLite database ${resolve(path)}: ${(error as Error).message}`, { cause: error });
  } finally {
    db?.close();
  }
}

export function openDatabase(path: string): SqliteDatabase {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = openFile(path);
  try {
    // Opening may wait for another process (start-up only, so blocking is fine): migrations take the write lock.
    db.pragma('busy_timeout = 5000');
    useWal(db, 5000);
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // Before migrating: nothing is written to a damaged file.
    const problems = path === ':memory:' ? [] : quickCheck(path);
    if (problems.length > 0) throw new DamagedDatabase(path, problems.join('; '));
    migrate(db);
  } catch (error) {
    db.close();
    // "file is not a database" (a bad header), "database disk image is malformed" (truncated, damaged pages).
    if (DAMAGED.has((error as { code?: string }).code ?? '')) throw new DamagedDatabase(path, (error as Error).message, { cause: error });
    throw error;
  }
  // From here on nothing waits for a lock on the event loop, where a wait would stop every
  // request: writes wait for the write lock on timers (engine.ts), and reads in WAL mode
  // never wait for a writer.
  db.pragma('busy_timeout = 0');
  return db;
}
