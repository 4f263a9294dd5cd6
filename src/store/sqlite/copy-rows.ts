// The SQLite side of `plant-store copy`: the rows of a file in one read snapshot (a source), and a new file at the
// latest schema written in one transaction under a temporary name, put in place only once complete (a target).
import { existsSync, linkSync, mkdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { COPY_BATCH, type CopySource, type CopyTarget, type Row, type Table } from '../copy-rows.js';
import { migrate, openDatabase, syncToDisk, type SqliteDatabase } from './database.js';

/** By the order of their keys: BINARY text order is byte order, as PostgreSQL's COLLATE "C". */
const SELECT: Record<Table, string> = {
  plants: 'SELECT owner, id, name, tag FROM plants ORDER BY owner, id',
  tokens: 'SELECT id, user, hash, created_at, expires_at, revoked_at, last_used_at FROM tokens ORDER BY id',
};
const INSERT: Record<Table, string> = {
  plants: 'INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?)',
  tokens: 'INSERT INTO tokens (id, user, hash, created_at, expires_at, revoked_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
};

/** Async only in form: each batch is read synchronously, the statement's iterator open in between. */
function reader(db: SqliteDatabase): CopySource['read'] {
  return async function* (table) {
    let batch: Row[] = [];
    for (const row of db.prepare(SELECT[table]).raw().safeIntegers().iterate() as Iterable<Row>) {
      if (batch.push(row) < COPY_BATCH) continue;
      yield batch;
      batch = [];
    }
    if (batch.length > 0) yield batch;
  };
}

/** The file's rows as of now, whatever is written meanwhile (a WAL read transaction); the file is migrated first, as every command does. */
export function sqliteSource(path: string): CopySource {
  if (!existsSync(path)) throw new Error(`there is no SQLite database at ${resolve(path)} (DATABASE_PATH): nothing to copy`);
  const db = openDatabase(path);
  db.exec('BEGIN');
  db.prepare('SELECT count(*) FROM tokens').get(); // the snapshot starts at the first read
  return {
    read: reader(db),
    close: async () => {
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    },
  };
}

/**
 * A new SQLite file at `path`, written under a temporary name beside it and linked into place on commit: a copy that
 * fails leaves no file under `path`, and an existing file is never replaced. Refuses a non-empty file, or a -wal or
 * -shm, already there.
 */
export function sqliteTarget(path: string): CopyTarget {
  const file = resolve(path);
  for (const existing of [file, `${file}-wal`, `${file}-shm`]) {
    const stat = statSync(existing, { throwIfNoEntry: false });
    if (stat?.isDirectory()) throw new Error(`the target ${existing} is a folder: name a new file`);
    if (stat !== undefined && (stat.size > 0 || existing !== file))
      throw new Error(`the target ${existing} already exists (${stat.size} bytes): copy only to a new file; nothing was changed`);
  }
  mkdirSync(dirname(file), { recursive: true });
  const temp = join(dirname(file), `.${basename(file)}.copy-${process.pid}.tmp`);
  rmSync(temp, { force: true }); // ours: a copy of this process id that died before cleaning up
  const db = new Database(temp);
  // A rollback journal: the finished file stands alone (no -wal to carry along); the service turns WAL on when it opens it.
  db.pragma('journal_mode = DELETE');
  db.pragma('synchronous = FULL');
  migrate(db);
  db.exec('BEGIN IMMEDIATE');
  return {
    read: reader(db),
    count: async (table) => Number(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get()),
    write: async (table, rows) => {
      const insert = db.prepare(INSERT[table]);
      for (const row of rows) insert.run(...row);
    },
    commit: async () => {
      db.exec('COMMIT');
      db.close();
      syncToDisk(temp);
      if (existsSync(file))
        renameSync(temp, file); // the empty file checked above
      else {
        linkSync(temp, file); // fails if a file appeared there meanwhile: never replaced
        unlinkSync(temp);
      }
      syncToDisk(dirname(file));
    },
    abandon: async () => {
      if (db.open) db.close();
      for (const leftover of [temp, `${temp}-journal`]) rmSync(leftover, { force: true });
    },
  };
}
