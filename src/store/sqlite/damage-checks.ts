// Whether the SQLite file is damaged: start-up's bounded check, `plant-store check`'s full one, and the
// one message that says so, with the file and how to recover (docs/operations.md).
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { existsSync, linkSync, mkdtempSync, rmSync, statSync } = process.getBuiltinModule('node:fs');

/**
 * The start-up check reads every page of a file up to this many (128 MiB of 4 KiB pages): PRAGMA quick_check
 * costs about 25 to 75 ms per 1,000 pages, 0.3 to 1 s on the benchmark's 1,000,000-row file (13,061 pages;
 * docs/reliability.md). A larger file has its schema and every table but `plants` checked at start, so start-up
 * stays bounded; `plant-store check` reads it all.
 */
export const QUICK_CHECK_PAGE_LIMIT = 32_768;

/**
 * SQLite's answers for a file that is not a database ("file is not a database": a bad header), or a
 * damaged one ("database disk image is malformed": truncated, damaged pages).
 */
export function isDamage(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code);
  return code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT');
}

/** A damaged file, said with its path, what is wrong, and how to recover. */
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
    const db = new Database(join(folder, 'alone.db'), { readonly: true, fileMustExist: true });
    try {
      return db.pragma('quick_check', { simple: true }) === 'ok';
    } finally {
      db.close();
    }
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
 * Throws a DamagedDatabase when quick_check finds problems: over the whole file, or within QUICK_CHECK_PAGE_LIMIT.
 * On a connection of its own, closed after: the pages it reads stay out of the service connection's
 * page cache (in WAL mode a cached page stays trusted until a checkpoint, so damage under the running
 * service would otherwise go unseen by it; test/reliability/damaged-file.test.ts).
 */
export function quickCheck(path: string): void {
  let db;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw damagedOr(path, error);
  }
  try {
    // Start-up only: another process may be making the same new file (switching it to WAL, migrating it).
    db.pragma('busy_timeout = 5000');
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
    if (problems.length > 0) throw damage(path, problems.join('; '));
  } catch (error) {
    throw damagedOr(path, error);
  } finally {
    db.close();
  }
}

/** PRAGMA integrity_check, all of it (`plant-store check`): the problems found in the file, none: []. */
export function integrityCheck(path: string): string[] {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    return rows.map((row) => row.integrity_check).filter((text) => text !== 'ok');
  } catch (error) {
    if (isDamage(error)) return [(error as Error).message];
    throw new Error(`cannot open the SQLite database ${resolve(path)}: ${(error as Error).message}`, { cause: error });
  } finally {
    db?.close();
  }
}
