#!/usr/bin/env node
// The `plant-store` command: serve, migrate, and token create/list/revoke on the configured database.
import './platform/refuse-unsupported-node.js'; // first: before any module an old Node could crash on
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { expiryFromOptions, InvalidExpiry } from './auth/token-expiry.js';
import { createToken, invalidUserName, USER_NAME } from './auth/tokens.js';
import { loadConfig } from './config.js';
import { serve } from './server.js';
import { describeDatabase } from './store/describe-database.js';
import { openStore } from './store/open-store.js';
import type { TokenInfo } from './store/plant-store.js';
import { parseDecimalInteger } from './validation/integers.js';

const USAGE = `Usage:
  plant-store serve                  start the service (same as npm start)
  plant-store migrate                bring the database schema up to date, then exit
  plant-store check                  read every page of the SQLite file (PRAGMA integrity_check); exit 1
                                     naming the problems when it is damaged (docs/operations.md)
  plant-store token create <user> [--expires-in <duration> | --expires-at <time>]
                                     print a new token for <user>, alone, on stdout; it never
                                     expires unless told: --expires-in 90m, 12h, 30d, 2w or 1y
                                     (at most 5y), or --expires-at 2030-12-31T23:59:00Z
  plant-store token list             list tokens (never the tokens themselves): id, user, created,
                                     state (active, expired or revoked), expiry, last use
  plant-store token revoke <id>      revoke a token; it fails on its next request (on PostgreSQL,
                                     within 1 s on every instance)
  plant-store conformance --base-url <url> --token <token> --other-token <token> [--junit <file>] [--rate-limit] [--contract <file>] [--timeout <s>]
                                     check a running deployment against openapi.yaml: runs the package
                                     @plant-store/conformance (clients/conformance; docs/contract-checks.md)
All commands use DATABASE_URL (PostgreSQL) when set, else DATABASE_PATH (SQLite, default ./data/plants.db).`;

class UsageError extends Error {}

/**
 * Opens the configured store, first saying on stderr which database that is: run from another
 * folder, the default ./data/plants.db is another file than the server's.
 */
async function openAnnounced() {
  const config = loadConfig();
  const database = describeDatabase(config);
  const store = await openStore(config);
  process.stderr.write(`plant-store: using the ${database.text}${database.isNewFile ? ' (it did not exist: created it, empty)' : ''}\n`);
  return store;
}

/** `token create`'s user and expiry, checked before any database is opened. */
function createArguments(args: string[]): { user: string; expiresAt: Date | null } {
  let parsed;
  try {
    const options = { 'expires-in': { type: 'string', multiple: true }, 'expires-at': { type: 'string', multiple: true } } as const;
    parsed = parseArgs({ args, allowPositionals: true, options });
  } catch (error) {
    throw new UsageError((error as Error).message); // parseArgs names the option: "Option '--expires-in <value>' argument missing"
  }
  const [user, ...extra] = parsed.positionals;
  if (user === undefined) throw new UsageError('a user name is missing: plant-store token create <user>');
  if (extra.length > 0) throw new UsageError(`too many arguments: ${extra.join(' ')}`);
  if (!USER_NAME.test(user)) throw new UsageError(invalidUserName(user));
  // parseArgs would keep the last of two silently: which one the operator meant is theirs to say.
  const twice = Object.entries(parsed.values).find(([, values]) => values.length > 1);
  if (twice) throw new UsageError(`--${twice[0]} is given ${twice[1].length} times: give it once`);
  try {
    return {
      user,
      expiresAt: expiryFromOptions({ 'expires-in': parsed.values['expires-in']?.[0], 'expires-at': parsed.values['expires-at']?.[0] }),
    };
  } catch (error) {
    throw error instanceof InvalidExpiry ? new UsageError(error.message) : error;
  }
}

/** Writes to stdout and resolves once written: a reader gone (EPIPE) or a full disk is an error here, not an unhandled event later. */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.once('error', reject);
    process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

const TOKEN_COLUMNS = ['ID', 'USER', 'CREATED', 'STATE', 'EXPIRES', 'LAST USED'];

/** One tab-separated line: the first four columns are as they were before expiry existed, so scripts that cut them keep working. */
function tokenLine(token: TokenInfo): string {
  const state = token.revokedAt !== null ? `revoked ${token.revokedAt}` : token.expired ? 'expired' : 'active';
  return [String(token.id), token.user, token.createdAt, state, token.expiresAt ?? 'never', token.lastUsedAt ?? '-'].join('\t');
}

async function tokenCommand(args: string[]): Promise<void> {
  const [action, argument, ...extra] = args;
  if (action === undefined) throw new UsageError('a token command is missing: create, list or revoke');
  const create = action === 'create' ? createArguments(args.slice(1)) : undefined;
  if (create === undefined && extra.length > 0) throw new UsageError(`too many arguments: ${extra.join(' ')}`);
  if (action === 'revoke' && argument === undefined)
    throw new UsageError('a token id is missing: plant-store token revoke <id> (see "plant-store token list")');
  // Ids the store hands out: positive, and exact as a JavaScript number.
  const revokeId = action === 'revoke' ? parseDecimalInteger(argument!, 1n, BigInt(Number.MAX_SAFE_INTEGER)) : undefined;
  if (action === 'revoke' && revokeId === undefined) throw new UsageError(`"${argument}" is not a token id; see "plant-store token list"`);
  // Every mistake of the command line is told before a database is opened (or created).
  if (create === undefined && !(action === 'list' && argument === undefined) && action !== 'revoke')
    throw new UsageError(`unknown token command: ${args.join(' ')}`);
  const store = await openAnnounced();
  try {
    if (create !== undefined) {
      const { id, token } = await createToken(store, create.user, create.expiresAt);
      // A token nobody saw must not stay usable: a reader gone or a full disk revokes it.
      try {
        await writeOut(`${token}\n`);
      } catch (error) {
        await store.revokeToken(id);
        throw new Error(`the token could not be written to stdout (${(error as Error).message}), so token ${id} was revoked`, {
          cause: error,
        });
      }
      const expiry = create.expiresAt === null ? 'never expires' : `expires at ${create.expiresAt.toISOString()}`;
      process.stderr.write(`created token ${id} for ${create.user}; it ${expiry}\n`);
    } else if (action === 'list') {
      const tokens = await store.listTokens();
      process.stdout.write([TOKEN_COLUMNS.join('\t'), ...tokens.map(tokenLine)].join('\n') + '\n');
    } else {
      if (!(await store.revokeToken(Number(revokeId)))) throw new Error(`no active token has id ${argument}; see "plant-store token list"`);
      process.stderr.write(`revoked token ${argument}\n`);
    }
  } finally {
    await store.close();
  }
}

/** The full integrity_check, on demand: start-up's own check is bounded (store/sqlite/damage-checks.ts). */
async function checkCommand(): Promise<void> {
  const config = loadConfig();
  if (config.databaseUrl !== undefined) throw new Error('check reads a SQLite file (DATABASE_PATH); PostgreSQL checks its own pages');
  const path = resolve(config.databasePath);
  if (!existsSync(path)) throw new Error(`there is no SQLite database at ${path} (DATABASE_PATH)`);
  if (!statSync(path).isFile()) throw new Error(`${path} (DATABASE_PATH) is not a file: DATABASE_PATH names the SQLite file itself`);
  process.stderr.write(`plant-store: checking the SQLite file ${path}: PRAGMA integrity_check reads every page\n`);
  const { integrityCheck } = await import('./store/sqlite/damage-checks.js');
  const problems = integrityCheck(path);
  if (problems.length === 0) return void process.stdout.write('ok\n');
  process.stdout.write(`${problems.join('\n')}\n`);
  throw new Error(
    `the SQLite database ${path} is damaged (the problems above); restore a backup or save what is readable with sqlite3's .recover (docs/operations.md)`,
  );
}

/** Opening a store applies its pending migrations (under a lock, on PostgreSQL); a deploy can run them before the instances. */
async function migrateCommand(): Promise<void> {
  const store = await openAnnounced();
  await store.close();
  process.stderr.write('the database schema is up to date\n');
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
  if (command === 'serve' && rest.length === 0) return serve();
  if (command === 'migrate' && rest.length === 0) return migrateCommand();
  if (command === 'check' && rest.length === 0) return checkCommand();
  if (command === 'token') return tokenCommand(rest);
  if (command === 'conformance') return conformanceCommand(rest);
  if (command === undefined) throw new UsageError('a command is missing');
  if (command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  throw new UsageError(`unknown command: ${command}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`plant-store: ${(error as Error).message}\n`);
  if (error instanceof UsageError) process.stderr.write(`${USAGE}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
