// Puts a backup in place of the SQLite database, the service stopped: the backup checked first (by copying it
// with backup.ts, which checks the copy), the database and its -wal/-shm moved aside, never deleted.
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { backupDatabase, syncToDisk, type BackupResult } from './backup.js';
import { lockHolders } from './open-elsewhere.js';
import { SIDE_FILES } from './remains.js';

export interface RestoreResult extends BackupResult {
  /** Where each file that was in the way went: [from, to]. */
  movedAside: Array<[from: string, to: string]>;
  /** How this command knew no other process had the database open; undefined when it could not tell. */
  lockCheck: string | undefined;
}

/** A restore refused; nothing was changed. */
export class RestoreRefused extends Error {}

/** Refuses while another process has `file` (or its -wal, -shm) open; says how it knows, or undefined when it cannot. */
function refuseWhileOpen(file: string): string | undefined {
  const holders = lockHolders([file, ...SIDE_FILES.map((suffix) => `${file}${suffix}`)]);
  if (holders === undefined) return undefined;
  if (holders.length > 0) {
    const who = holders.map(({ pid, file: locked }) => `process ${pid} holds a lock on ${locked}`).join('; ');
    throw new RestoreRefused(
      `${file} is open in another process (${who}, as /proc/locks lists; every SQLite connection holds one while open): ` +
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
