// `plant-store token create/list/revoke`: tokens one at a time or a team's at once, listed as text or JSON lines, revoked by id or by user.
import { createTokens, invalidUserName, USER_NAME } from '../auth/tokens.js';
import type { TokenInfo } from '../store/plant-store.js';
import { parseDecimalInteger } from '../validation/exact-integer.js';
import { withStore, writeOut } from './common.js';
import { expiryFromOptions } from './token-expiry.js';
import { parseCommandLine, UsageError } from './usage-error.js';

/** Tokens one `token create --count` makes at most: one transaction, and a screenful of lines to hand out. */
export const MAX_TOKEN_COUNT = 10_000;

function userName(user: string): string {
  if (!USER_NAME.test(user)) throw new UsageError(invalidUserName(user));
  return user;
}

/** `token create`'s user, count and expiry, checked before any database is opened. */
function createArguments(args: string[]): { user: string; count: number; expiresAt: Date | null } {
  const { positionals, values } = parseCommandLine(
    args,
    { 'expires-in': { type: 'string' }, 'expires-at': { type: 'string' }, count: { type: 'string' } },
    1,
  );
  const [user] = positionals;
  if (user === undefined) throw new UsageError('a user name is missing: plant-store token create <user>');
  const countText = values.count as string | undefined;
  const count = countText === undefined ? 1n : parseDecimalInteger(countText, 1n, BigInt(MAX_TOKEN_COUNT));
  if (count === undefined) throw new UsageError(`--count must be a whole number from 1 to ${MAX_TOKEN_COUNT}, not "${countText}"`);
  return { expiresAt: expiryFromOptions(values), user: userName(user), count: Number(count) };
}

const TOKEN_COLUMNS = ['ID', 'USER', 'CREATED', 'STATE', 'EXPIRES', 'LAST USED'];

const stateOf = (token: TokenInfo) => (token.revokedAt !== null ? 'revoked' : token.expired ? 'expired' : 'active');

/** One tab-separated line: the first four columns are as they were before expiry existed, so scripts that cut them keep working. */
function tokenLine(token: TokenInfo): string {
  const state = token.revokedAt !== null ? `revoked ${token.revokedAt}` : stateOf(token);
  return [String(token.id), token.user, token.createdAt, state, token.expiresAt ?? 'never', token.lastUsedAt ?? '-'].join('\t');
}

/** One JSON object a line (JSON Lines), for scripts: what the table shows, never the token nor its hash. */
function tokenJson(token: TokenInfo): string {
  const { id, user, createdAt, expiresAt, lastUsedAt, revokedAt } = token;
  return JSON.stringify({ id, user, state: stateOf(token), createdAt, expiresAt, lastUsedAt, revokedAt });
}

/** "3 to 7", or each id when another process made some in between. */
const idRange = (ids: number[]) => (ids.at(-1)! - ids[0]! + 1 === ids.length ? `${ids[0]} to ${ids.at(-1)}` : ids.join(', '));

async function create(args: string[]): Promise<void> {
  const { user, count, expiresAt } = createArguments(args);
  await withStore(async (store) => {
    const { ids, tokens } = await createTokens(store, user, count, expiresAt);
    // A token nobody saw must not stay usable: a reader gone or a full disk revokes them all.
    try {
      await writeOut(tokens.map((token) => `${token}\n`).join(''));
    } catch (error) {
      for (const id of ids) await store.revokeToken(id);
      const which = ids.length === 1 ? `token ${ids[0]} was` : `tokens ${idRange(ids)} were`;
      throw new Error(`the token could not be written to stdout (${(error as Error).message}), so ${which} revoked`, { cause: error });
    }
    const expiry = expiresAt === null ? 'never expire' : `expire at ${expiresAt.toISOString()}`;
    if (ids.length === 1) process.stderr.write(`created token ${ids[0]} for ${user}; it ${expiry.replace('expire', 'expires')}\n`);
    else process.stderr.write(`created ${ids.length} tokens for ${user} (ids ${idRange(ids)}), one a line on stdout; they ${expiry}\n`);
  });
}

async function list(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, { user: { type: 'string' }, json: { type: 'boolean' } });
  const user = values.user === undefined ? undefined : userName(values.user as string);
  await withStore(async (store) => {
    const tokens = await store.listTokens(user);
    const lines = values.json === true ? tokens.map(tokenJson) : [TOKEN_COLUMNS.join('\t'), ...tokens.map(tokenLine)];
    await writeOut(lines.map((line) => `${line}\n`).join(''));
  });
}

async function revoke(args: string[]): Promise<void> {
  const { positionals, values } = parseCommandLine(args, { user: { type: 'string' } }, 1);
  const [argument] = positionals;
  if (values.user !== undefined && argument !== undefined) throw new UsageError('give a token id or --user <name>, not both');
  if (values.user === undefined && argument === undefined)
    throw new UsageError('a token id is missing: plant-store token revoke <id> or --user <name> (see "plant-store token list")');
  const user = values.user === undefined ? undefined : userName(values.user as string);
  // Ids the store hands out: positive, and exact as a JavaScript number.
  const id = argument === undefined ? undefined : parseDecimalInteger(argument, 1n, BigInt(Number.MAX_SAFE_INTEGER));
  if (argument !== undefined && id === undefined) throw new UsageError(`"${argument}" is not a token id; see "plant-store token list"`);
  await withStore(async (store) => {
    if (user !== undefined) {
      const revoked = await store.revokeUserTokens(user);
      process.stderr.write(`revoked ${revoked} active token${revoked === 1 ? '' : 's'} of ${user}\n`);
    } else {
      if (!(await store.revokeToken(Number(id)))) throw new Error(`no active token has id ${argument}; see "plant-store token list"`);
      process.stderr.write(`revoked token ${argument}\n`);
    }
  });
}

/** Every mistake of the command line is told before a database is opened (or created). */
export async function tokenCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  if (action === undefined) throw new UsageError('a token command is missing: create, list or revoke');
  if (action === 'create') return create(rest);
  if (action === 'list') return list(rest);
  if (action === 'revoke') return revoke(rest);
  throw new UsageError(`unknown token command: ${args.join(' ')}`);
}
