// What the `plant-store` commands share: the announced opening of the configured database, and stdout writes that report failure.
import { databaseSettings } from '../database-settings.js';
import { describeDatabase } from '../store/describe-database.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/plant-store.js';

/**
 * Runs `use` on the configured store, then closes it. Opening says first on stderr which database that is: run from another
 * folder, the default ./data/plants.db is another file than the server's. What opening logs (migrations applied, the
 * backup SQLite takes first) is said after the database, or before a failure; a caller that passes `said` gets it there instead.
 */
export async function withStore<T>(use: (store: Store) => Promise<T>, said?: string[]): Promise<T> {
  const settings = databaseSettings();
  const database = describeDatabase(settings);
  const lines = said ?? [];
  const note = (_details: object, message: string) => void lines.push(message);
  const tell = () => lines.forEach((line) => process.stderr.write(`plant-store: ${line}\n`));
  const store = await openStore(settings, { info: note, error: note }).catch((error: unknown) => {
    tell();
    throw error;
  });
  process.stderr.write(`plant-store: using the ${database.text}${database.isNewFile ? ' (it did not exist: created it, empty)' : ''}\n`);
  if (said === undefined) tell();
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

/** Writes to stdout and resolves once written: a reader gone (EPIPE) or a full disk is an error here, not an unhandled event later. */
export function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.once('error', reject);
    process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
  });
}
