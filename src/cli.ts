#!/usr/bin/env node
// The `plant-store` command: serve, migrate, and token create/list/revoke on the configured database.
import './platform/refuse-unsupported-node.js'; // first: before any module an old Node could crash on
import { createToken } from './auth/tokens.js';
import { loadConfig } from './config.js';
import { serve } from './server.js';
import { describeDatabase } from './store/describe-database.js';
import { openStore } from './store/open-store.js';
import { parseDecimalInteger } from './validation/integers.js';

const USAGE = `Usage:
  plant-store serve                  start the service (same as npm start)
  plant-store migrate                bring the database schema up to date, then exit
  plant-store token create <user>    print a new token for <user>, alone, on stdout
  plant-store token list             list token ids and their users (never the tokens)
  plant-store token revoke <id>      revoke a token; it fails on its next request
  plant-store conformance --base-url <url> --token <token> --other-token <token> [--junit <file>] [--rate-limit]
                                     check a running deployment against openapi.yaml (docs/contract-checks.md)
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

async function tokenCommand(args: string[]): Promise<void> {
  const [action, argument, ...extra] = args;
  if (extra.length > 0) throw new UsageError(`too many arguments: ${extra.join(' ')}`);
  if (action === undefined) throw new UsageError('a token command is missing: create, list or revoke');
  if (action === 'create' && argument === undefined) throw new UsageError('a user name is missing: plant-store token create <user>');
  if (action === 'revoke' && argument === undefined) throw new UsageError('a token id is missing: plant-store token revoke <id> (see "plant-store token list")');
  const store = await openAnnounced();
  try {
    if (action === 'create' && argument !== undefined) {
      const { token } = await createToken(store, argument);
      process.stdout.write(`${token}\n`);
    } else if (action === 'list' && argument === undefined) {
      const tokens = await store.listTokens();
      const lines = tokens.map((token) => [String(token.id), token.user, token.createdAt, token.revokedAt ? `revoked ${token.revokedAt}` : 'active'].join('\t'));
      process.stdout.write(['ID\tUSER\tCREATED\tSTATE', ...lines].join('\n') + '\n');
    } else if (action === 'revoke' && argument !== undefined) {
      // Ids the store hands out: positive, and exact as a JavaScript number.
      const id = parseDecimalInteger(argument, 1n, BigInt(Number.MAX_SAFE_INTEGER));
      if (id === undefined) throw new UsageError(`"${argument}" is not a token id; see "plant-store token list"`);
      if (!(await store.revokeToken(Number(id)))) throw new Error(`no active token has id ${argument}; see "plant-store token list"`);
      process.stderr.write(`revoked token ${argument}\n`);
    } else {
      throw new UsageError(`unknown token command: ${args.join(' ')}`);
    }
  } finally {
    await store.close();
  }
}

/** Opening a store applies its pending migrations (under a lock, on PostgreSQL); a deploy can run them before the instances. */
async function migrateCommand(): Promise<void> {
  const store = await openAnnounced();
  await store.close();
  process.stderr.write('the database schema is up to date\n');
}

async function main(args: string[]): Promise<void> {
  const [command, ...rest] = args;
  if (command === 'serve' && rest.length === 0) return serve();
  if (command === 'migrate' && rest.length === 0) return migrateCommand();
  if (command === 'token') return tokenCommand(rest);
  if (command === 'conformance') return import('./conformance/command.js').then(async ({ conformanceCommand }) => void (process.exitCode = await conformanceCommand(rest)));
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
