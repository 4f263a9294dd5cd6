// `plant-store migrate [--status]`: applies the pending schema migrations and says which, or only shows the versions.
import { databaseSettings, type DatabaseSettings } from '../database-settings.js';
import { describeDatabase } from '../store/describe-database.js';
import { withStore } from './common.js';
import { parseCommandLine } from './usage-error.js';

/** The schema version the configured database is at (0: none yet), and the latest this Plant Store knows; nothing is changed. */
async function versions(config: DatabaseSettings): Promise<{ current: number; latest: number }> {
  if (config.databaseUrl !== undefined) {
    const [{ schemaVersion }, { migrations }] = await Promise.all([
      import('../store/postgres/database.js'),
      import('../store/postgres/migrations.js'),
    ]);
    return { current: await schemaVersion({ url: config.databaseUrl, timeoutMs: config.databaseTimeoutMs }), latest: migrations.length };
  }
  const [{ sqliteSchemaVersion, refuseRemains }, { migrations }] = await Promise.all([
    import('../store/sqlite/database.js'),
    import('../store/sqlite/migrations.js'),
  ]);
  refuseRemains(config.databasePath);
  return { current: sqliteSchemaVersion(config.databasePath) ?? 0, latest: migrations.length };
}

async function showStatus(): Promise<void> {
  const config = databaseSettings();
  const database = describeDatabase(config);
  const { current, latest } = await versions(config);
  // Said once the database answered, as every command says it: a failure to reach it is the first line.
  process.stderr.write(`plant-store: using the ${database.text}\n`);
  const pending = latest - current;
  const state =
    current > latest
      ? 'newer than this Plant Store: upgrade Plant Store'
      : pending === 0
        ? 'up to date'
        : `${pending} pending: run plant-store migrate`;
  process.stdout.write(
    `current version: ${current}${database.isNewFile ? ' (no database file yet)' : ''}\nlatest version: ${latest}\n${state}\n`,
  );
}

export async function migrateCommand(args: string[]): Promise<void> {
  if (parseCommandLine(args, { status: { type: 'boolean' } }).values.status === true) return showStatus();
  // Opening the store applies what is pending (under a lock on PostgreSQL; SQLite backs the file up first): each line it logs is said.
  const applied: string[] = [];
  await withStore(async () => undefined, applied);
  if (applied.length > 0) return void process.stdout.write(`${applied.join('\n')}\n`);
  const { current } = await versions(databaseSettings());
  process.stdout.write(`nothing to apply, at version ${current}\n`);
}
