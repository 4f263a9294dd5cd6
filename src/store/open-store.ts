// Chooses the store the configuration names: PostgreSQL when DATABASE_URL is set, else the SQLite file.
import type { Config } from '../config.js';
import type { Store, StoreLog } from './plant-store.js';

type StoreConfig = Pick<Config, 'databasePath'> &
  Partial<Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'databaseTimeoutMs' | 'writeLockTimeoutMs'>>;

/**
 * Each store's driver is imported only when it is the one configured: pg alone holds about 10 MB. Migrations
 * applied, and the backup SQLite's take first, are logged to `log`.
 */
export async function openStore(config: StoreConfig, log?: StoreLog): Promise<Store> {
  if (config.databaseUrl !== undefined) {
    const { PostgresStore } = await import('./postgres/postgres-store.js');
    const settings = { url: config.databaseUrl, poolSize: config.databasePoolSize ?? 10, timeoutMs: config.databaseTimeoutMs ?? 5000 };
    return PostgresStore.open(settings, log);
  }
  const { SqliteStore } = await import('./sqlite/sqlite-store.js');
  const { backupBeforeMigrating } = await import('./sqlite/backup.js');
  const { refuseRemains } = await import('./sqlite/database.js');
  refuseRemains(config.databasePath);
  await backupBeforeMigrating(config.databasePath, log);
  return new SqliteStore(config.databasePath, { lockTimeoutMs: config.writeLockTimeoutMs, log });
}
