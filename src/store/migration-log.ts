// The one log line of each schema migration applied, the same for SQLite and PostgreSQL: a migration leaves
// more trace than a changed version number.
import type { StoreLog } from './plant-store.js';

export interface AppliedMigration {
  from: number;
  to: number;
  /** How long it took, in milliseconds. */
  ms: number;
}

/** Refuses a database whose schema is newer than the `known` migrations of this Plant Store. */
export function refuseNewer(current: number, known: number): void {
  if (current > known)
    throw new Error(`the database is at schema version ${current}, newer than this Plant Store (${known}); upgrade Plant Store`);
}

export function logMigration(log: StoreLog | undefined, database: 'SQLite' | 'PostgreSQL', step: AppliedMigration): void {
  log?.info(
    { migration: { from: step.from, to: step.to, ms: step.ms } },
    `applied the ${database} schema migration from version ${step.from} to ${step.to} in ${step.ms} ms`,
  );
}
