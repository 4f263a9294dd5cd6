// `plant-store backup <file> [--overwrite]`: a consistent copy of the configured SQLite database, the service running or not;
// `plant-store restore <file>`: puts a backup in its place, with the service stopped.
import { databaseSettings } from '../database-settings.js';
import { describeDatabase } from '../store/describe-database.js';
import { parseCommandLine, UsageError } from './usage-error.js';

/** Files from this size on show their progress: smaller ones take well under a second. */
const PROGRESS_FROM_BYTES = 16 * 1024 * 1024;
const MiB = 1024 * 1024;

/** The file and options, checked before any database is opened. */
function fileArgument(command: string, args: string[], flags: Record<string, { type: 'boolean' }> = {}) {
  const { positionals, values } = parseCommandLine(args, flags, 1);
  if (positionals[0] === undefined) throw new UsageError(`a file is missing: plant-store ${command} <file>`);
  return { file: positionals[0], values };
}

/** On PostgreSQL the database's own tools do it: the command, with the URL as configured but without its password. */
function usePostgresTool(command: 'backup' | 'restore', file: string): Error {
  const url = describeDatabase(databaseSettings()).text.replace(/^PostgreSQL /, '');
  const line =
    command === 'backup'
      ? `pg_dump --format=custom --file='${file}' '${url}'`
      : `pg_restore --clean --if-exists --no-owner --single-transaction --dbname='${url}' '${file}'`;
  return new Error(
    `${command} copies a SQLite file, and DATABASE_URL names a PostgreSQL database: use ${command === 'backup' ? 'pg_dump' : 'pg_restore'}:\n` +
      `  ${line}\n(the password from PGPASSWORD or ~/.pgpass; docs/operations.md, "Backups and restores")`,
  );
}

export async function backupCommand(args: string[]): Promise<void> {
  const { file, values } = fileArgument('backup', args, { overwrite: { type: 'boolean' } });
  const config = databaseSettings();
  if (config.databaseUrl !== undefined) throw usePostgresTool('backup', file);
  const { backupDatabase } = await import('../store/sqlite/backup.js');
  const { refuseRemains } = await import('../store/sqlite/database.js');
  refuseRemains(config.databasePath);
  process.stderr.write(`plant-store: backing up the ${describeDatabase(config).text}\n`);
  let shown = -1;
  const result = await backupDatabase(config.databasePath, file, {
    overwrite: values.overwrite === true,
    onProgress: (copied, total, pageSize) => {
      const tenths = Math.floor((copied / total) * 10);
      if (total * pageSize < PROGRESS_FROM_BYTES || tenths === shown) return;
      shown = tenths;
      process.stderr.write(
        `copied ${tenths * 10}% (${Math.round((copied * pageSize) / MiB)} of ${Math.round((total * pageSize) / MiB)} MiB)\n`,
      );
    },
  });
  process.stdout.write(
    `backed up ${result.plants} plants and ${result.tokens} tokens (schema version ${result.schemaVersion}, ${result.bytes} bytes) to ${result.path}\n`,
  );
}

export async function restoreCommand(args: string[]): Promise<void> {
  const { file } = fileArgument('restore', args);
  const config = databaseSettings();
  if (config.databaseUrl !== undefined) throw usePostgresTool('restore', file);
  const { restoreDatabase } = await import('../store/sqlite/restore.js');
  process.stderr.write(`plant-store: restoring ${file} as the ${describeDatabase(config).text}\n`);
  const result = await restoreDatabase(file, config.databasePath);
  process.stderr.write(
    result.lockCheck === undefined
      ? 'plant-store: this system cannot tell whether another process has the database open (no /proc/locks): the service must be stopped\n'
      : `plant-store: not in use: ${result.lockCheck}\n`,
  );
  for (const [from, to] of result.movedAside) process.stdout.write(`moved ${from} aside to ${to}\n`);
  process.stdout.write(
    `restored ${result.plants} plants and ${result.tokens} tokens (schema version ${result.schemaVersion}) to ${result.path}\n`,
  );
}
