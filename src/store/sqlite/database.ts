// Opens the SQLite file durably (WAL, synchronous=FULL) and brings its schema up to date. The engine
// then sets the store's connection to sync off the event loop and never wait for a lock (engine.ts).
import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { damagedOr, quickCheck } from './damage-checks.js';
import { migrations } from './migrations.js';

export type SqliteDatabase = Database.Database;

export function migrate(db: SqliteDatabase): void {
  // One IMMEDIATE transaction reads the version and applies what is pending: processes opening one new
  // file at once (instances starting together) apply each migration once, and no file stops halfway.
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > migrations.length) {
      throw new Error(
        `the database is at schema version ${current}, newer than this Plant Store (${migrations.length}); upgrade Plant Store`,
      );
    }
    if (current === migrations.length) return;
    for (const migration of migrations.slice(current)) db.exec(migration);
    db.pragma(`user_version = ${migrations.length}`);
  }).immediate();
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
  let db: SqliteDatabase;
  try {
    db = new Database(path);
  } catch (error) {
    const folder = existsSync(path) && statSync(path).isDirectory();
    const reason = folder ? 'it is a folder; DATABASE_PATH must name a file' : (error as Error).message;
    throw new Error(`cannot open the SQLite database ${resolve(path)}: ${reason}`, { cause: error });
  }
  // SQLite opens a file this process may not write read-only, without a word: the service would start, say
  // it is ready, and answer every write 500.
  if (path !== ':memory:' && !canWrite(path)) {
    db.close();
    throw new Error(`cannot open the SQLite database ${resolve(path)}: this process may not write to it (its permissions)`);
  }
  return db;
}

function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export function openDatabase(path: string): SqliteDatabase {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = openFile(path);
  try {
    // Opening may wait for another process (start-up only, so blocking is fine): migrations take the write lock.
    db.pragma('busy_timeout = 5000');
    if (path !== ':memory:') quickCheck(path); // before WAL and migrations: nothing is written to a damaged file
    useWal(db, 5000);
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrate(db);
  } catch (error) {
    db.close();
    throw damagedOr(path, error);
  }
  return db;
}
