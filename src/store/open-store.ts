// Chooses the store the configuration names: PostgreSQL when DATABASE_URL is set, else the SQLite file.
import type { DatabaseSettings } from '../database-settings.js';
import type { Store, StoreLog } from './plant-store.js';

/**
 * Each store's driver is imported only when it is the one configured: pg alone holds about 10 MB. Migrations
 * applied, and the backup SQLite's take first, are logged to `log`.
 */
export async function openStore(config: DatabaseSettings, log?: StoreLog): Promise<Store> {
  if (config.databaseUrl !== undefined) {
    const { PostgresStore } = await import('./postgres/postgres-store.js');
    return PostgresStore.open({ url: config.databaseUrl, poolSize: config.databasePoolSize, timeoutMs: config.databaseTimeoutMs }, log);
  }
  const { SqliteStore } = await import('./sqlite/sqlite-store.js');
  const { backupBeforeMigrating } = await import('./sqlite/backup.js');
  // Without the file (the remains of a deleted one included) it backs up nothing; opening then refuses the remains.
  await backupBeforeMigrating(config.databasePath, log);
  return new SqliteStore(config.databasePath, { lockTimeoutMs: config.writeLockTimeoutMs, log });
}
