// The remains of a SQLite database whose file is gone: its -wal and -shm without it. Nothing opens a new, empty
// database over them (the old tokens would fail and a new bootstrap token appear, with `check` saying ok).
import { resolve } from 'node:path';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { existsSync, statSync } = process.getBuiltinModule('node:fs');

/** The side files SQLite keeps beside a database in WAL mode. */
export const SIDE_FILES = ['-wal', '-shm'] as const;

/** Throws, naming them and what to do, when `path` does not exist but its -wal or -shm does. */
export function refuseRemains(path: string): void {
  if (path === ':memory:') return;
  const file = resolve(path);
  if (existsSync(file)) return;
  const found = SIDE_FILES.map((suffix) => `${file}${suffix}`).filter((side) => existsSync(side));
  if (found.length === 0) return;
  const listed = found.map((side) => `${side} (${statSync(side).size} bytes)`).join(' and ');
  throw new Error(
    `there is no SQLite database at ${file}, but ${listed} ${found.length === 1 ? 'is' : 'are'} there: the remains of a database ` +
      `whose file was deleted or moved. Plant Store does not create a new database over them. Put the database file back ` +
      `(plant-store restore <backup> puts a backup in place), or, to really start empty, move ${found.join(' and ')} aside ` +
      `(docs/operations.md, "Backups and restores")`,
  );
}
