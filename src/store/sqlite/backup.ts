// A consistent copy of a live SQLite file (docs/operations.md, "Backups and restores"): SQLite's online backup API
// inside one read transaction, checked, synced and renamed into place, so a crash leaves no partial file under the name.
// Taken by `plant-store backup`, by restore (to check the backup), and before migrating: the way back from an upgrade.
import { basename, dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { StoreLog } from '../plant-store.js';
import { sqliteSchemaVersion, syncToDisk } from './database.js';
import { checkProblems, quickCheck } from './file-health.js';
import { migrations } from './migrations.js';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { accessSync, constants, existsSync, renameSync, rmSync, statSync } = process.getBuiltinModule('node:fs');

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

/** Removes the partial copy this call made, and the side files SQLite may have left beside it; never anything else. */
function removePartial(path: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/** What a Plant Store database holds, read from `db`; throws naming `what` when it is not one, or one from a newer Plant Store. */
function describeContents(db: Database.Database, what: string): Omit<BackupResult, 'path' | 'bytes'> {
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
      const problems = checkProblems(copy, 'quick_check');
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

/** Where the backup before migrating from `version` goes: plants.db.schema-2.backup, or, taken before, one named with the time. */
function backupName(file: string, version: number): string {
  const plain = `${file}.schema-${version}.backup`;
  if (!existsSync(plain)) return plain;
  return `${file}.schema-${version}.${new Date().toISOString().replaceAll(/[-:.]/g, '')}.backup`;
}

/**
 * Writes the backup when the file exists at a version with migrations pending (a new, empty file has nothing to
 * keep), logs where, and returns it. A version the file cannot be read at is left to the open that follows to report.
 */
export async function backupBeforeMigrating(path: string, log?: StoreLog): Promise<BackupResult | undefined> {
  if (path === ':memory:') return undefined;
  const file = resolve(path);
  let version;
  try {
    version = sqliteSchemaVersion(file);
  } catch {
    return undefined;
  }
  if (version === undefined || version === 0 || version >= migrations.length) return undefined;
  quickCheck(file); // a damaged file is said as such (and not migrated), not as a failed backup
  const backup = await backupDatabase(file, backupName(file, version));
  log?.info(
    { backup: { path: backup.path, schemaVersion: version, plants: backup.plants, tokens: backup.tokens, bytes: backup.bytes } },
    `backed up the database before migrating it from schema version ${version}: ${backup.path} ` +
      `(${backup.plants} plants, ${backup.tokens} tokens, ${backup.bytes} bytes)`,
  );
  return backup;
}
