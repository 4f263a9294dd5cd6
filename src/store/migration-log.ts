// The one log line of each schema migration applied, the same for SQLite and PostgreSQL: a migration leaves
// more trace than a changed version number.
import type { StoreLog } from './plant-store.js';

export interface AppliedMigration {
  from: number;
  to: number;
  /** How long it took, in milliseconds. */
  ms: number;
}

export function logMigration(log: StoreLog | undefined, database: 'SQLite' | 'PostgreSQL', step: AppliedMigration): void {
  log?.info(
    { migration: { from: step.from, to: step.to, ms: step.ms } },
    `applied the ${database} schema migration from version ${step.from} to ${step.to} in ${step.ms} ms`,
  );
}
