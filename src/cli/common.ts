// What the `plant-store` commands share: the usage error, the announced opening of the configured database, and stdout writes that report failure.
import { databaseSettings } from '../database-settings.js';
import { describeDatabase } from '../store/describe-database.js';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/plant-store.js';

export { UsageError } from './usage-error.js';

/**
 * Opens the configured store, first saying on stderr which database that is: run from another
 * folder, the default ./data/plants.db is another file than the server's. Only the database settings
 * are read (database-settings.ts): a command starts in milliseconds, not the whole configuration's 200.
 */
export async function openAnnounced(): Promise<Store> {
  const settings = databaseSettings();
  const database = describeDatabase(settings);
  // Migrations applied on the way, and the backup SQLite's take first, are said too: after the database, or before a failure.
  const said: string[] = [];
  const note = (_details: object, message: string) => void said.push(`plant-store: ${message}\n`);
  const store = await openStore(settings, { info: note, error: note }).catch((error: unknown) => {
    process.stderr.write(said.join(''));
    throw error;
  });
  process.stderr.write(`plant-store: using the ${database.text}${database.isNewFile ? ' (it did not exist: created it, empty)' : ''}\n`);
  process.stderr.write(said.join(''));
  return store;
}

/** Writes to stdout and resolves once written: a reader gone (EPIPE) or a full disk is an error here, not an unhandled event later. */
export function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.once('error', reject);
    process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
  });
}
