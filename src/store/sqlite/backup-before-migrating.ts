// Before SQLite's schema changes, a backup beside the file named with the old version: the way back from an upgrade.
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { StoreLog } from '../plant-store.js';
import { quickCheck } from './damage-checks.js';
import type { BackupResult } from './backup.js';
import { migrations } from './migrations.js';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { existsSync } = process.getBuiltinModule('node:fs');

/** The file's schema version, read without changing anything; undefined when there is no file. */
export function sqliteSchemaVersion(path: string): number | undefined {
  if (!existsSync(path)) return undefined;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

/** Where the backup before migrating from `version` goes: plants.db.schema-2.backup, or, taken before, one named with the time. */
function backupName(file: string, version: number): string {
  const plain = `${file}.schema-${version}.backup`;
  if (!existsSync(plain)) return plain;
  return `${file}.schema-${version}.${new Date().toISOString().replaceAll(/[-:.]/g, '')}.backup`;
}

/**
 * Writes the backup when the file exists at a version with migrations pending (a new, empty file has nothing to
 * keep), logs where, and returns it. A version the file cannot be read at is left to the open that follows to report.
 */
export async function backupBeforeMigrating(path: string, log?: StoreLog): Promise<BackupResult | undefined> {
  if (path === ':memory:') return undefined;
  const file = resolve(path);
  let version;
  try {
    version = sqliteSchemaVersion(file);
  } catch {
    return undefined;
  }
  if (version === undefined || version === 0 || version >= migrations.length) return undefined;
  quickCheck(file); // a damaged file is said as such (and not migrated), not as a failed backup
  const { backupDatabase } = await import('./backup.js'); // loaded only when there is a backup to take
  const backup = await backupDatabase(file, backupName(file, version));
  log?.info(
    { backup: { path: backup.path, schemaVersion: version, plants: backup.plants, tokens: backup.tokens, bytes: backup.bytes } },
    `backed up the database before migrating it from schema version ${version}: ${backup.path} ` +
      `(${backup.plants} plants, ${backup.tokens} tokens, ${backup.bytes} bytes)`,
  );
  return backup;
}
