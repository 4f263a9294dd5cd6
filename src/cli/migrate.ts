// `plant-store migrate [--status]`: applies the pending schema migrations and says which, or only shows the versions.
import { parseArgs } from 'node:util';
import { databaseSettings } from '../database-settings.js';
import type { StoreLog } from '../store/plant-store.js';
import { describeDatabase } from '../store/describe-database.js';
import { openStore } from '../store/open-store.js';
import { UsageError } from './usage-error.js';

/** The schema version the configured database is at (0: none yet), and the latest this Plant Store knows; nothing is changed. */
async function versions(): Promise<{ current: number; latest: number }> {
  const config = databaseSettings();
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

export async function migrateCommand(args: string[]): Promise<void> {
  let status;
  try {
    status = parseArgs({ args, options: { status: { type: 'boolean' } } }).values.status === true;
  } catch (error) {
    throw new UsageError((error as Error).message); // names the unknown option or the argument too many
  }
  const config = databaseSettings();
  const database = describeDatabase(config);
  // Said once the database answered, as every command says it: a failure to reach it is the first line.
  const announce = () =>
    process.stderr.write(
      `plant-store: using the ${database.text}${database.isNewFile && !status ? ' (it did not exist: created it, empty)' : ''}\n`,
    );
  if (status) {
    const { current, latest } = await versions();
    announce();
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
    return;
  }
  // Opening the store applies what is pending (under a lock on PostgreSQL; SQLite backs the file up first): each line it logs is said.
  const said: string[] = [];
  const log: StoreLog = { info: (_details, message) => void said.push(message), error: (_details, message) => void said.push(message) };
  const store = await openStore(config, log).catch((error: unknown) => {
    for (const line of said) process.stderr.write(`plant-store: ${line}\n`); // a backup taken before a failed migration, with its path
    throw error;
  });
  await store.close();
  announce();
  if (said.length > 0) return void process.stdout.write(`${said.join('\n')}\n`);
  const { current } = await versions();
  process.stdout.write(`nothing to apply, at version ${current}\n`);
}
