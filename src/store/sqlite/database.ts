// Opens the SQLite file durably (WAL, synchronous=FULL) and brings its schema up to date.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrations } from './migrations.js';

export type SqliteDatabase = Database.Database;

export function migrate(db: SqliteDatabase, target = migrations.length): void {
  // The version is read inside each IMMEDIATE transaction: processes opening one new file at
  // once (instances starting together) then apply each migration once, one after the other.
  const step = db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > migrations.length) {
      throw new Error(`the database is at schema version ${current}, newer than this Plant Store (${migrations.length}); upgrade Plant Store`);
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

export function openDatabase(path: string): SqliteDatabase {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}
