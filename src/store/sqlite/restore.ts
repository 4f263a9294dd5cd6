// Puts a backup in place of the SQLite database, the service stopped: the backup checked first (by copying it
// with backup.ts, which checks the copy), the database and its -wal/-shm moved aside, never deleted.
import { existsSync, mkdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { backupDatabase, type BackupResult } from './backup.js';
import { SIDE_FILES, syncToDisk } from './database.js';

export interface RestoreResult extends BackupResult {
  /** Where each file that was in the way went: [from, to]. */
  movedAside: Array<[from: string, to: string]>;
  /** How this command knew no other process had the database open; undefined when it could not tell. */
  lockCheck: string | undefined;
}

/** A restore refused; nothing was changed. */
export class RestoreRefused extends Error {}

/** major:minor as /proc/locks writes them (hex), from a stat's dev. */
function deviceOf(dev: bigint): string {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}`;
}

/**
 * Refuses while another process has `file` (or its -wal, -shm) open; says how it knows, or undefined when this system
 * has no /proc/locks (not Linux). Every connection to a file in WAL mode holds, for as long as it is open, a shared
 * POSIX lock on the file (SQLite's SHARED range) and one on its -shm (the "DMS" byte); Linux lists every POSIX lock,
 * with its process and its file's device and inode, in /proc/locks.
 */
function refuseWhileOpen(file: string): string | undefined {
  let table: string;
  try {
    table = readFileSync('/proc/locks', 'utf8');
  } catch {
    return undefined;
  }
  const wanted = new Map<string, string>();
  for (const path of [file, ...SIDE_FILES.map((suffix) => `${file}${suffix}`)]) {
    const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (stat !== undefined) wanted.set(`${deviceOf(stat.dev)}:${stat.ino}`, path);
  }
  const holders = new Set<string>();
  // "1: POSIX  ADVISORY  READ 10943 fe:00:2164592 128 128"; lines with "->" are waiters, not holders.
  for (const line of table.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[1] === '->' || fields.length < 6) continue;
    const [pid, locked] = [Number(fields[4]), wanted.get(fields[5]!)];
    if (locked !== undefined && pid !== process.pid) holders.add(`process ${pid} holds a lock on ${locked}`);
  }
  if (holders.size > 0) {
    throw new RestoreRefused(
      `${file} is open in another process (${[...holders].join('; ')}, as /proc/locks lists; every SQLite connection holds one while open): ` +
        `stop the service and every plant-store command using it, then restore again. Nothing was changed`,
    );
  }
  return 'no process holds a lock on it or its -wal/-shm (/proc/locks)';
}

export async function restoreDatabase(backup: string, target: string): Promise<RestoreResult> {
  const from = resolve(backup);
  const to = resolve(target);
  if (!existsSync(from)) throw new RestoreRefused(`there is no backup at ${from}`);
  if (!statSync(from).isFile()) throw new RestoreRefused(`${from} is not a file`);
  if (from === to) throw new RestoreRefused(`${from} is the database itself: name a backup`);
  const lockCheck = refuseWhileOpen(to);
  mkdirSync(dirname(to), { recursive: true });
  // The copy checks the backup (quick_check, a Plant Store database at a known version) before anything is moved.
  const staging = `${to}.restoring-${process.pid}`;
  let copy: BackupResult;
  try {
    copy = await backupDatabase(from, staging);
  } catch (error) {
    const reason = (error as Error).message;
    throw new RestoreRefused(`the backup ${from} cannot be restored: ${reason}. Nothing was changed`, { cause: error });
  }
  // The database first: stopped half-way, what is left is a database missing (start-up refuses, naming the -wal
  // still there), never a database without its -wal (which would lose acknowledged writes without a word).
  const stamp = new Date().toISOString().replaceAll(/[-:.]/g, '');
  const movedAside: RestoreResult['movedAside'] = [];
  for (const suffix of ['', ...SIDE_FILES]) {
    const file = `${to}${suffix}`;
    if (!existsSync(file)) continue;
    const aside = `${to}.before-restore-${stamp}${suffix}`;
    renameSync(file, aside);
    movedAside.push([file, aside]);
  }
  renameSync(staging, to);
  syncToDisk(dirname(to));
  return { ...copy, path: to, movedAside, lockCheck };
}
