#!/usr/bin/env node
// The `plant-store` command: serve, migrate, and token create/list/revoke on the configured database.
import './platform/refuse-unsupported-node.js'; // first: before any module an old Node could crash on
import './platform/enable-compile-cache.js'; // second: the modules loaded after it are compiled once, not on every run
import { resolve } from 'node:path';
import { UsageError } from './cli/usage-error.js';

const USAGE = `Usage:
  plant-store serve                  start the service (same as npm start)
  plant-store migrate [--status]     apply the pending schema migrations and say which (SQLite: after a backup
                                     beside the file, plants.db.schema-N.backup), then exit; --status only shows
                                     the current and the latest version
  plant-store backup <file> [--overwrite]
                                     a consistent copy of the SQLite file, also while the service runs and writes;
                                     checked, synced, then renamed into place (PostgreSQL: says the pg_dump command)
  plant-store restore <file>         put a backup in place, the service stopped: the database and its -wal/-shm
                                     are moved aside, never deleted (docs/operations.md, "Backups and restores")
  plant-store check                  read every page of the SQLite file (PRAGMA integrity_check); exit 1
                                     naming the problems when it is damaged (docs/operations.md)
  plant-store token create <user> [--count <n>] [--expires-in <duration> | --expires-at <time>]
                                     print a new token for <user>, alone, on stdout; it never
                                     expires unless told: --expires-in 90m, 12h, 30d, 2w or 1y
                                     (at most 5y), or --expires-at 2030-12-31T23:59:00Z; --count
                                     makes n (at most 10000) at once, one a line, all or none
  plant-store token list [--user <name>] [--json]
                                     list tokens (never the tokens themselves): id, user, created,
                                     state (active, expired or revoked), expiry, last use; --json:
                                     one JSON object a line
  plant-store token revoke <id> | --user <name>
                                     revoke a token, or every active token of a user; it fails on its
                                     next request (on PostgreSQL, within 1 s on every instance)
  plant-store copy --to <target>     copy every plant and token into a new database and verify it (counts and
                                     SHA-256 of both sides): from the SQLite file --to an empty PostgreSQL
                                     database (postgres://...), or from DATABASE_URL --to a new SQLite file
                                     (docs/deploy.md, "Moving from SQLite to PostgreSQL")
  plant-store conformance --base-url <url> --token <token> --other-token <token> [--junit <file>] [--rate-limit] [--contract <file>] [--timeout <s>]
                                     check a running deployment against openapi.yaml: runs the package
                                     @plant-store/conformance (clients/conformance; docs/contract-checks.md)
All commands use DATABASE_URL (PostgreSQL) when set, else DATABASE_PATH (SQLite, default ./data/plants.db).`;

/** The full integrity_check, on demand: start-up's own check is bounded (store/sqlite/file-health.ts). */
async function checkCommand(): Promise<void> {
  const { existsSync, statSync } = process.getBuiltinModule('node:fs'); // not `import`: see docs/deploy.md, "Many tokens"
  const { databaseSettings } = await import('./database-settings.js');
  const config = databaseSettings();
  if (config.databaseUrl !== undefined) throw new Error('check reads a SQLite file (DATABASE_PATH); PostgreSQL checks its own pages');
  const path = resolve(config.databasePath);
  const { refuseRemains } = await import('./store/sqlite/database.js');
  refuseRemains(path);
  if (!existsSync(path)) throw new Error(`there is no SQLite database at ${path} (DATABASE_PATH)`);
  if (!statSync(path).isFile()) throw new Error(`${path} (DATABASE_PATH) is not a file: DATABASE_PATH names the SQLite file itself`);
  process.stderr.write(`plant-store: checking the SQLite file ${path}: PRAGMA integrity_check reads every page\n`);
  const { integrityCheck, StaleWal, wholeWithoutWal } = await import('./store/sqlite/file-health.js');
  const problems = integrityCheck(path);
  if (problems.length === 0) return void process.stdout.write('ok\n');
  process.stdout.write(`${problems.join('\n')}\n`);
  if (wholeWithoutWal(path)) throw new StaleWal(path, 'the problems above');
  throw new Error(
    `the SQLite database ${path} is damaged (the problems above); restore a backup or save what is readable with sqlite3's .recover (docs/operations.md)`,
  );
}

/**
 * The conformance run ships apart, as @plant-store/conformance (clients/conformance), a dependency of this
 * package installed by npm ci; it is loaded only for this command, and named plainly when it is missing.
 */
async function conformanceCommand(args: string[]): Promise<void> {
  let conformance: typeof import('@plant-store/conformance');
  try {
    conformance = await import('@plant-store/conformance');
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error;
    throw new Error(
      'the conformance run is the package @plant-store/conformance, and it is not installed (or not built) here: ' +
        'run npm ci (or npm run build) in the plant-store checkout, or install the package alone and run plant-store-conformance ' +
        `(clients/conformance/README.md). ${(error as Error).message}`,
      { cause: error },
    );
  }
  process.exitCode = await conformance.conformanceCommand(args, { program: 'plant-store conformance' });
}

async function main(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  // Each command loads only its own modules, after the compile cache is on: the server (Fastify, the whole
  // configuration) only to serve, and a `token create` none of backup's, copy's or migrate's.
  if (command === 'serve' && rest.length === 0) return (await import('./server.js')).serve();
  if (command === 'migrate') return (await import('./cli/migrate.js')).migrateCommand(rest);
  if (command === 'backup') return (await import('./cli/backup.js')).backupCommand(rest);
  if (command === 'restore') return (await import('./cli/backup.js')).restoreCommand(rest);
  if (command === 'check' && rest.length === 0) return checkCommand();
  if (command === 'token') return (await import('./cli/tokens.js')).tokenCommand(rest);
  if (command === 'copy') return (await import('./cli/copy.js')).copyCommand(rest);
  if (command === 'conformance') return conformanceCommand(rest);
  if (command === undefined) throw new UsageError('a command is missing');
  if (command === 'help' || command === '--help') return void process.stdout.write(`${USAGE}\n`);
  throw new UsageError(`unknown command: ${command}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`plant-store: ${(error as Error).message}\n`);
  if (error instanceof UsageError) process.stderr.write(`${USAGE}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
