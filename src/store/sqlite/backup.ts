// A consistent copy of a live SQLite file (docs/operations.md, "Backups and restores"): SQLite's online backup API
// inside one read transaction, checked, synced and renamed into place, so a crash leaves no partial file under the name.
import { accessSync, closeSync, constants, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { migrations } from './migrations.js';

export interface BackupResult {
  /** The backup's absolute path. */
  path: string;
  plants: number;
  tokens: number;
  bytes: number;
  /** The schema version the copy is at (PRAGMA user_version). */
  schemaVersion: number;
}

export interface BackupOptions {
  /** Replace a file already at the target (it is replaced only once the new copy is whole). */
  overwrite?: boolean;
  /** Called after each step with the pages copied so far, of how many, and the page size. */
  onProgress?: (copied: number, total: number, pageSize: number) => void;
}

/** Pages copied per step (4 MiB of 4 KiB pages): the event loop of this process turns between steps. */
const PAGES_PER_STEP = 1024;

/** A backup that could not be made; the message names the file and the cause. */
export class BackupFailed extends Error {}

/** The cause of a failure to write in `folder`, named as an operator can act on it. */
function writeProblem(error: unknown, folder: string): string | undefined {
  const code = String((error as { code?: unknown } | null)?.code);
  if (code === 'ENOSPC' || code === 'SQLITE_FULL') return `no space left on the disk holding ${folder} (${code})`;
  if (code === 'EROFS') return `${folder} is on a read-only file system (EROFS)`;
  if (code === 'EACCES' || code === 'EPERM') return `this user may not write in ${folder} (${code}: its permissions)`;
  if (code.startsWith('SQLITE_READONLY')) return `${folder} cannot be written (${code}: read-only file system or permissions)`;
  return undefined;
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

/** Removes the partial copy this call made, and the side files SQLite may have left beside it; never anything else. */
function removePartial(path: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/** What a Plant Store database holds, read from `db`; throws naming `what` when it is not one, or one from a newer Plant Store. */
export function describeContents(db: Database.Database, what: string): Omit<BackupResult, 'path' | 'bytes'> {
  const version = db.pragma('user_version', { simple: true }) as number;
  const tables = new Set(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[]);
  // Schema 1 had plants only; tokens came with 2.
  if (!tables.has('plants') || version < 1 || (version >= 2 && !tables.has('tokens'))) {
    throw new BackupFailed(
      `${what} is a SQLite file but not a Plant Store database (no plants table, or no tokens table, at a Plant Store schema version)`,
    );
  }
  if (version > migrations.length) {
    throw new BackupFailed(
      `${what} is at schema version ${version}, newer than this Plant Store (${migrations.length}); upgrade Plant Store`,
    );
  }
  const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  return { plants: count('plants'), tokens: tables.has('tokens') ? count('tokens') : 0, schemaVersion: version };
}

/**
 * Copies the SQLite database at `source` to `target`. Every write committed before this was called is in the copy:
 * the copy is one snapshot, the read transaction held here from before the first page to the last. Held, it also keeps
 * the backup API from starting over each time another connection commits (which, under steady writes, a stepped
 * backup would do forever); writers go on meanwhile (WAL: a reader never blocks them).
 */
export async function backupDatabase(source: string, target: string, options: BackupOptions = {}): Promise<BackupResult> {
  const from = resolve(source);
  const to = resolve(target);
  const folder = dirname(to);
  if (!existsSync(from)) throw new BackupFailed(`there is no SQLite database at ${from}`);
  if (to === from) throw new BackupFailed(`the backup would replace the database itself (${from}): name another file`);
  if (!existsSync(folder)) throw new BackupFailed(`cannot write the backup ${to}: the folder ${folder} does not exist`);
  if (!options.overwrite && existsSync(to)) {
    throw new BackupFailed(`${to} already exists: name a new file, or add --overwrite to replace it`);
  }
  try {
    accessSync(folder, constants.W_OK);
  } catch (error) {
    throw new BackupFailed(`cannot write the backup ${to}: ${writeProblem(error, folder) ?? (error as Error).message}`, { cause: error });
  }
  // Beside the target, so the rename into place stays on one file system (atomic); named for this process.
  const partial = join(folder, `.${basename(to)}.${process.pid}.partial`);
  const db = new Database(from, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.exec('BEGIN');
    db.prepare('SELECT count(*) FROM sqlite_schema').get(); // the read transaction, and so the snapshot, starts here
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    await db.backup(partial, {
      progress: ({ totalPages, remainingPages }) => {
        options.onProgress?.(totalPages - remainingPages, totalPages, pageSize);
        return PAGES_PER_STEP;
      },
    });
    db.exec('COMMIT');
    const copy = new Database(partial, { fileMustExist: true });
    let contents;
    try {
      // One file, no -wal: the copy is complete alone, and can be moved or restored as it is.
      copy.pragma('journal_mode = DELETE');
      const problems = (copy.pragma('quick_check', { simple: false }) as Array<{ quick_check: string }>)
        .map((row) => row.quick_check)
        .filter((text) => text !== 'ok');
      if (problems.length > 0) throw new BackupFailed(`the copy failed PRAGMA quick_check: ${problems.join('; ')}`);
      contents = describeContents(copy, `the database ${from}`);
    } finally {
      copy.close();
    }
    syncToDisk(partial);
    if (!options.overwrite && existsSync(to)) throw new BackupFailed(`${to} appeared while the backup ran: name a new file`);
    renameSync(partial, to);
    syncToDisk(folder);
    return { path: to, bytes: statSync(to).size, ...contents };
  } catch (error) {
    removePartial(partial);
    if (error instanceof BackupFailed) throw error;
    const problem = writeProblem(error, folder);
    if (problem !== undefined) throw new BackupFailed(`cannot write the backup ${to}: ${problem}`, { cause: error });
    throw new BackupFailed(`the backup of ${from} to ${to} failed: ${(error as Error).message}`, { cause: error });
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
  }
}
