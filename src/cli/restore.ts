// `plant-store restore <file>`: puts a backup in place of the configured SQLite database, with the service stopped.
import { databaseSettings } from '../database-settings.js';
import { describeDatabase } from '../store/describe-database.js';
import { fileArgument, usePostgresTool } from './backup.js';

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
