// Why the SQLite file could not be opened or first written at start, in words an operator can act on: SQLite says
// only "disk I/O error" or "unable to open database file", so the folder and the disk are asked for the cause.
import { dirname, resolve } from 'node:path';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { accessSync, constants, existsSync, statfsSync } = process.getBuiltinModule('node:fs');

/** Free space under which a failed first write is put down to a full disk: a new file needs a few pages and its WAL. */
const FULL_BELOW_BYTES = 256 * 1024;

/** SQLite's answers that a missing room or right can cause (SQLITE_IOERR_WRITE, SQLITE_CANTOPEN, SQLITE_READONLY_DIRECTORY...). */
const STORAGE_CODES = /^SQLITE_(FULL|IOERR|CANTOPEN|READONLY)/;

/**
 * What stops this process writing `path` (the file when it exists; its folder, where a new file and the WAL go), or
 * undefined when nothing does. `onlyTheFile`: the file alone, neither its folder nor free space (a file that is only
 * opened: reads go on on a full disk).
 */
export function writeProblem(path: string, onlyTheFile = false): string | undefined {
  const file = resolve(path);
  const folder = dirname(file);
  const targets = existsSync(file) ? [file, folder] : [folder];
  for (const target of onlyTheFile ? targets.filter((target) => target === file) : targets) {
    try {
      accessSync(target, constants.W_OK);
    } catch (error) {
      const what = target === file ? 'it' : `its folder ${folder}`;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EROFS')
        return `${what} is on a read-only file system (EROFS); mount it read-write or set DATABASE_PATH to a writable place`;
      if (code === 'EACCES' || code === 'EPERM') {
        const uid = process.getuid?.();
        return `this process may not write to ${what} (permission denied, ${code}${uid === undefined ? '' : `, uid ${uid}`}): change its owner or mode, or set DATABASE_PATH to a writable place`;
      }
    }
  }
  if (onlyTheFile) return undefined;
  try {
    const { bavail, bsize } = statfsSync(folder);
    if (bavail * bsize < FULL_BELOW_BYTES)
      return `no space left on the disk holding it (${bavail * bsize} bytes free, ENOSPC); free some space and start again`;
  } catch {
    // the folder cannot even be examined: SQLite's own words are all there is
  }
  return undefined;
}

/**
 * `error`, met while opening or first writing the SQLite file at start, said with the file and its cause when the
 * cause is a full disk, a read-only file system or a permission; any other error is returned as it is.
 */
export function explainOpenFailure(path: string, error: unknown): unknown {
  const code = String((error as { code?: unknown } | null)?.code);
  if (path === ':memory:' || !STORAGE_CODES.test(code)) return error;
  const problem = writeProblem(path);
  if (problem === undefined) return error;
  return new Error(`cannot open the SQLite database ${resolve(path)}: ${problem} (SQLite said "${(error as Error).message}")`, {
    cause: error,
  });
}
