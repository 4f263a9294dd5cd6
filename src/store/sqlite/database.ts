// Opens the SQLite file durably (WAL, synchronous=FULL) and brings its schema up to date. The engine
// then sets the store's connection to sync off the event loop and never wait for a lock (engine.ts).
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { damagedOr, quickCheck } from './damage-checks.js';
import type { StoreLog } from '../plant-store.js';
import { logMigration, type AppliedMigration } from '../migration-log.js';
import { explainOpenFailure, writeProblem } from './open-failure.js';
import { migrations } from './migrations.js';
import { refuseRemains } from './remains.js';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { existsSync, mkdirSync, statSync } = process.getBuiltinModule('node:fs');

export type SqliteDatabase = Database.Database;

/** Applies the pending migrations; each one applied is logged (from, to, milliseconds) and returned. */
export function migrate(db: SqliteDatabase, log?: StoreLog): AppliedMigration[] {
  // One IMMEDIATE transaction reads the version and applies what is pending: processes opening one new
  // file at once (instances starting together) apply each migration once, and no file stops halfway.
  const applied = db
    .transaction(() => {
      const current = db.pragma('user_version', { simple: true }) as number;
      if (current > migrations.length) {
        throw new Error(
          `the database is at schema version ${current}, newer than this Plant Store (${migrations.length}); upgrade Plant Store`,
        );
      }
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
  return applied;
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
    if (existsSync(path) && statSync(path).isDirectory())
      throw new Error(`cannot open the SQLite database ${resolve(path)}: it is a folder; DATABASE_PATH must name a file`, { cause: error });
    const explained = explainOpenFailure(path, error);
    if (explained !== error) throw explained;
    throw new Error(`cannot open the SQLite database ${resolve(path)}: ${(error as Error).message}`, { cause: error });
  }
  // SQLite opens a file this process may not write read-only, without a word: the service would start, say
  // it is ready, and answer every write 500.
  const problem = path === ':memory:' ? undefined : writeProblem(path, true);
  if (problem !== undefined) {
    db.close();
    throw new Error(`cannot open the SQLite database ${resolve(path)}: ${problem}`);
  }
  return db;
}

/** The folder the file goes in, made if missing; a failure names the file it was for, and the cause (permission, read-only, no space). */
function makeFolder(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new Error(`cannot open the SQLite database ${resolve(path)}: cannot make its folder (${(error as Error).message})`, {
      cause: error,
    });
  }
}

export function openDatabase(path: string, log?: StoreLog): SqliteDatabase {
  refuseRemains(path);
  if (path !== ':memory:') makeFolder(path);
  const db = openFile(path);
  try {
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
