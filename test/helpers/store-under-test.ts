// Which store the suite runs against (PLANT_STORE_TEST_STORE: sqlite or postgres). Every test that
// needs a database asks here, so the same tests run against each store implementation.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Test } from 'tap';
import type { Config } from '../../src/config.js';
import { adminQuery, freshDatabase } from './postgres-database.js';
import { tempDir } from './temp-dir.js';

export type StoreKind = 'sqlite' | 'postgres';

function chosenStore(text = process.env.PLANT_STORE_TEST_STORE || 'sqlite'): StoreKind {
  if (text !== 'sqlite' && text !== 'postgres') throw new Error(`PLANT_STORE_TEST_STORE must be sqlite or postgres, not "${text}"`);
  return text;
}

export const storeKind = chosenStore();

export interface StoreSettings {
  /** For buildApp. */
  config: Partial<Config>;
  /** For a `plant-store` process. */
  env: Record<string, string>;
}

/** A fresh, empty database for one test, removed when the test ends. */
export async function freshStore(t: Test): Promise<StoreSettings> {
  if (storeKind === 'postgres') {
    const databaseUrl = await freshDatabase(t);
    return { config: { databaseUrl }, env: { DATABASE_URL: databaseUrl, REDIS_URL: '' } };
  }
  const databasePath = join(tempDir(t), 'plants.db');
  // Empty DATABASE_URL and REDIS_URL: a developer's own settings must not send a process elsewhere.
  return { config: { databasePath, databaseUrl: undefined }, env: { DATABASE_PATH: databasePath, DATABASE_URL: '', REDIS_URL: '' } };
}

/**
 * Breaks the store under a running service, as a real fault would: another connection drops
 * a table (plants by default). Returns what the cause looks like in the log.
 */
export async function breakStore(
  config: Pick<Config, 'databasePath' | 'databaseUrl'>,
  table: 'plants' | 'tokens' = 'plants',
): Promise<RegExp> {
  if (config.databaseUrl !== undefined) {
    await adminQuery(config.databaseUrl, `DROP TABLE ${table}`);
    return new RegExp(`relation \\W*${table}\\W* does not exist`); // the quotes are escaped in JSON log lines
  }
  const other = new Database(config.databasePath);
  other.exec(`DROP TABLE ${table}`);
  other.close();
  return /no such table/;
}

/** tap options for a test that only means something on one store: skipped, with the reason, in the other leg. */
export function onlyOn(kind: StoreKind): { skip: string | false } {
  return { skip: storeKind === kind ? false : `about the ${kind} store only; it runs in the ${kind} leg (PLANT_STORE_TEST_STORE=${kind})` };
}
