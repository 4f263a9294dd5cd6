// Chooses the store the configuration names: PostgreSQL when DATABASE_URL is set, else the SQLite file.
import type { Config } from '../config.js';
import type { Store } from './plant-store.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { GroupCommit } from './sqlite/group-commit.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

type StoreConfig = Pick<Config, 'databasePath'> & Partial<Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'databaseTimeoutMs' | 'writeLockTimeoutMs'>>;

export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.databaseUrl !== undefined) {
    return PostgresStore.open({ url: config.databaseUrl, poolSize: config.databasePoolSize ?? 10, timeoutMs: config.databaseTimeoutMs ?? 5000 });
  }
  return new SqliteStore(config.databasePath, { writes: (db) => new GroupCommit(db, { lockTimeoutMs: config.writeLockTimeoutMs }) });
}
