// Which other processes have a SQLite database open, told by the locks they hold. Every connection to a file in
// WAL mode holds, for as long as it is open, a shared POSIX lock on the file (SQLite's SHARED range) and one on
// its -shm (the "DMS" byte); Linux lists every POSIX lock, with its process and its file's device and inode, in /proc/locks.
import { readFileSync, statSync } from 'node:fs';

export interface LockHolder {
  pid: number;
  /** The file it holds a lock on. */
  file: string;
}

/** major:minor as /proc/locks writes them (hex), from a stat's dev. */
function deviceOf(dev: bigint): string {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}`;
}

/**
 * Processes other than this one holding a lock on any of `files`; undefined when this system has no /proc/locks
 * (not Linux), so nobody can tell.
 */
export function lockHolders(files: string[]): LockHolder[] | undefined {
  let table: string;
  try {
    table = readFileSync('/proc/locks', 'utf8');
  } catch {
    return undefined;
  }
  const wanted = new Map<string, string>();
  for (const file of files) {
    const stat = statSync(file, { bigint: true, throwIfNoEntry: false });
    if (stat !== undefined) wanted.set(`${deviceOf(stat.dev)}:${stat.ino}`, file);
  }
  const holders = new Map<string, LockHolder>();
  // "1: POSIX  ADVISORY  READ 10943 fe:00:2164592 128 128"; lines with "->" are waiters, not holders.
  for (const line of table.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[1] === '->' || fields.length < 6) continue;
    const [pid, where] = [Number(fields[4]), fields[5]!];
    const file = wanted.get(where);
    if (file === undefined || pid === process.pid) continue;
    holders.set(`${pid} ${file}`, { pid, file });
  }
  return [...holders.values()];
}
