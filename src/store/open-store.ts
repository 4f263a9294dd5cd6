// Chooses the store the configuration names.
import type { Config } from '../config.js';
import type { Store } from './plant-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';

export async function openStore(config: Pick<Config, 'databasePath'>): Promise<Store> {
  return new SqliteStore(config.databasePath);
}
