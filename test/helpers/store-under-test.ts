// Which store the suite runs against. Every test that needs a database asks here, so the
// same tests can run against each store implementation.
import { join } from 'node:path';
import type { Test } from 'tap';
import type { Config } from '../../src/config.js';
import { tempDir } from './temp-dir.js';

export const storeKind = process.env.PLANT_STORE_TEST_STORE ?? 'sqlite';

export interface StoreSettings {
  /** For buildApp. */
  config: Partial<Config>;
  /** For a `plant-store` process. */
  env: Record<string, string>;
}

/** A fresh, empty database for one test, removed when the test ends. */
export async function freshStore(t: Test): Promise<StoreSettings> {
  const databasePath = join(tempDir(t), 'plants.db');
  return { config: { databasePath }, env: { DATABASE_PATH: databasePath } };
}
