// The SQLite side of `plant-store copy`: the rows of a file in one read snapshot (a source), and a new file at the
// latest schema written in one transaction under a temporary name, put in place only once complete (a target).
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { COPY_BATCH, type CopyTarget, type PlantRecord, type Rows, type TokenRecord } from '../copy-rows.js';
import { migrate, openDatabase, type SqliteDatabase } from './database.js';

function* batches<T>(rows: Iterable<unknown>): Generator<T[]> {
  let batch: T[] = [];
  for (const row of rows) {
    batch.push(row as T);
    if (batch.length === COPY_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Rows by the order of their keys: BINARY text order is byte order, as PostgreSQL's COLLATE "C". */
function rowsOf(db: SqliteDatabase): Rows {
  const plants = db.prepare('SELECT owner, id, name, tag FROM plants ORDER BY owner, id').safeIntegers();
  const tokens = db
    .prepare(
      `SELECT id, user, hash, created_at AS createdAt, expires_at AS expiresAt, revoked_at AS revokedAt, last_used_at AS lastUsedAt
         FROM tokens ORDER BY id`,
    )
    .safeIntegers();
  return {
    // Async only in form: each batch is read synchronously, the connection's iterator open in between.
    plants: async function* () {
      yield* batches<PlantRecord>(plants.iterate());
    },
    tokens: async function* () {
      yield* batches<TokenRecord>(tokens.iterate());
    },
  };
}

export interface Snapshot {
  rows: Rows;
  close(): void;
}

/** The file's rows as of now, whatever is written meanwhile (a WAL read transaction); the file is migrated first, as every command does. */
export function sqliteSnapshot(path: string): Snapshot {
  if (!existsSync(path)) throw new Error(`there is no SQLite database at ${resolve(path)} (DATABASE_PATH): nothing to copy`);
  const db = openDatabase(path);
  db.exec('BEGIN');
  db.prepare('SELECT count(*) FROM tokens').get(); // the snapshot starts at the first read
  return {
    rows: rowsOf(db),
    close: () => {
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    },
  };
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * A new SQLite file at `path`, written under a temporary name beside it and linked into place on commit: a copy that
 * fails leaves no file under `path`, and an existing file is never replaced. Refuses a non-empty file, or a -wal or
 * -shm, already there.
 */
export function sqliteTarget(path: string): CopyTarget & { path: string } {
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
  const insertPlant = db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?)');
  const insertToken = db.prepare(
    'INSERT INTO tokens (id, user, hash, created_at, expires_at, revoked_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const count = (table: string) => Number(db.prepare(`SELECT count(*) FROM ${table}`).pluck().get());
  return {
    path: file,
    ...rowsOf(db),
    counts: async () => ({ plants: count('plants'), tokens: count('tokens') }),
    addPlants: async (batch) => {
      for (const plant of batch) insertPlant.run(plant.owner, plant.id, plant.name, plant.tag);
    },
    addTokens: async (batch) => {
      for (const token of batch)
        insertToken.run(token.id, token.user, token.hash, token.createdAt, token.expiresAt, token.revokedAt, token.lastUsedAt);
    },
    commit: async () => {
      db.exec('COMMIT');
      db.close();
      fsyncPath(temp);
      if (existsSync(file))
        renameSync(temp, file); // the empty file checked above
      else {
        linkSync(temp, file); // fails if a file appeared there meanwhile: never replaced
        unlinkSync(temp);
      }
      fsyncPath(dirname(file));
    },
    abandon: async () => {
      if (db.open) db.close();
      for (const leftover of [temp, `${temp}-journal`]) rmSync(leftover, { force: true });
    },
  };
}
