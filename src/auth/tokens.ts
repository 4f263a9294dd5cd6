// Token format and hashing: opaque random tokens, kept only as SHA-256 hashes.
import type { TokenHash, TokenStore } from '../store/plant-store.js';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { hash, randomBytes } = process.getBuiltinModule('node:crypto');

/** What a token looks like: 32 random bytes in base64url are 43 characters. */
export const TOKEN = /^pst_[A-Za-z0-9_-]{43}$/;
export const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const invalidUserName = (user: string) =>
  `${JSON.stringify(user)} is not a valid user name: use 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`;

/** The token's SHA-256 hash as base64 text: the one-shot hash makes no Hash object or Buffer on a request. */
export function hashToken(token: string): TokenHash {
  return hash('sha256', token, 'base64');
}

/** `expiresAt`: when the token stops working; null (the default) for never. */
export async function createToken(store: TokenStore, user: string, expiresAt: Date | null = null): Promise<{ id: number; token: string }> {
  const { ids, tokens } = await createTokens(store, user, 1, expiresAt);
  return { id: ids[0]!, token: tokens[0]! };
}

/** `count` tokens for one user, added in one transaction (all or none), and their ids, ascending. */
export async function createTokens(
  store: TokenStore,
  user: string,
  count: number,
  expiresAt: Date | null = null,
): Promise<{ ids: number[]; tokens: string[] }> {
  if (!USER_NAME.test(user)) throw new Error(invalidUserName(user));
  const tokens = Array.from({ length: count }, () => 'pst_' + randomBytes(32).toString('base64url'));
  const ids = await store.addTokens(user, tokens.map(hashToken), expiresAt);
  return { ids, tokens };
}
