// The storage interfaces, which SQLite and PostgreSQL each implement: a request's handle (PlantStore) and the app's store (Store).
import type { components } from '../../generated/types.js';
import type { PlantPage } from '../pagination/page.js';

/** A NewPlant once validated: its id is exact. */
export type StoredPlant = Omit<components['schemas']['NewPlant'], 'id'> & { id: bigint };

export type AddResult = 'created' | 'unchanged' | 'conflict';

/** A token's SHA-256 hash, as base64 text (auth/tokens.ts): stores keep only this, never the token. */
export type TokenHash = string;

/** Where a store says what it did or met (migrations applied, a full disk): the app's logger, or the CLI's stderr. */
export interface StoreLog {
  error(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface TokenOwner {
  tokenId: number;
  user: string;
}

export interface TokenInfo {
  id: number;
  user: string;
  createdAt: string;
  /** When the token stops working; null: it never expires. */
  expiresAt: string | null;
  /** Its expiry has passed, by the clock the store checks tokens against (findToken's). */
  expired: boolean;
  /** Its last use, written at most once a minute per token (so up to a minute old); null: not used since it was made or since the upgrade that added it. */
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** A store that cannot serve: its database does not answer, its disk is full, its file is damaged or was deleted or replaced. */
export type Readiness = 'ready' | 'unreachable' | 'disk-full' | 'damaged' | 'file-gone';

/** What a request asks of the store. */
export interface PlantStore {
  /**
   * The owner of a token, by its hash; revoked and expired tokens are not found. Finding a token
   * is a use of it: the store notes it (token-uses.ts) and writes it later, at most once a minute.
   */
  findToken(hash: TokenHash): Promise<TokenOwner | undefined>;
  /** Plants of `owner` with id greater than `after`, ascending: a page (pagination/page.ts) of at most `limit`. */
  listPlants(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage>;
  /** Resolves only after the plant is committed (or found identical, or conflicting). */
  addPlant(owner: string, plant: StoredPlant): Promise<AddResult>;
  /** Resolves true after the deletion is committed, false when there was no such plant. */
  deletePlant(owner: string, id: bigint): Promise<boolean>;
}

export interface TokenStore {
  /**
   * Tokens of one user, in one transaction: all are added or none; their ids, ascending. `expiresAt`: when they stop
   * working; null (the default) for never.
   */
  addTokens(user: string, hashes: readonly TokenHash[], expiresAt?: Date | null): Promise<number[]>;
  /** Every token, or only `user`'s, by id. */
  listTokens(user?: string): Promise<TokenInfo[]>;
  revokeToken(id: number): Promise<boolean>;
  /** Revokes every active (neither revoked nor expired) token of `user`, in one transaction; how many. */
  revokeUserTokens(user: string): Promise<number>;
  countTokens(): Promise<number>;
}

/** The store the app holds: plants are read and written only through a handle (forRequest). */
export interface Store extends TokenStore {
  /** Which database this is, as metrics and traces name it. */
  readonly kind: 'sqlite' | 'postgres';
  /**
   * The store for one request. Every answer reflects what any process had committed when the
   * request arrived; a store that caches may check for commits by others once, at the handle's
   * first read, instead of at every read.
   */
  forRequest(): PlantStore;
  /** 'ready', or why the store cannot serve now: /readyz says which (routes/health.ts). */
  readiness(): Promise<Readiness>;
  /** Writes the token uses not written yet, then closes; once, however often it is called. */
  close(): Promise<void>;
}
