// The storage interface the routes talk to; SQLite and PostgreSQL implement it.
import type { components } from '../../generated/types.js';

export type Plant = components['schemas']['Plant'];
/** A NewPlant once validated: its id is exact. */
export type StoredPlant = Omit<components['schemas']['NewPlant'], 'id'> & { id: bigint };

export type AddResult = 'created' | 'unchanged' | 'conflict';

export interface PlantPage {
  plants: Plant[];
  /** The id of the last plant on this page when more follow. */
  lastId?: bigint;
}

/** A page as the JSON text of a Plant array, exactly what GET /plants answers. */
export interface JsonPlantPage {
  json: string;
  /** The id of the last plant on this page when more follow. */
  lastId?: bigint;
}

export interface TokenOwner {
  tokenId: number;
  user: string;
}

export interface TokenInfo {
  id: number;
  user: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface PlantStore {
  /** Resolves only after the plant is committed (or found identical, or conflicting). */
  addPlant(owner: string, plant: StoredPlant): Promise<AddResult>;
  /** Plants of `owner` with id greater than `after`, ascending. */
  listPlants(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage>;
  /** Resolves true after the deletion is committed, false when there was no such plant. */
  deletePlant(owner: string, id: bigint): Promise<boolean>;
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}

export interface TokenStore {
  /** Looks a token up by its SHA-256 hash; revoked tokens are not found. */
  findToken(hash: Buffer): Promise<TokenOwner | undefined>;
  addToken(user: string, hash: Buffer): Promise<number>;
  listTokens(): Promise<TokenInfo[]>;
  revokeToken(id: number): Promise<boolean>;
  countTokens(): Promise<number>;
}

/**
 * The reads of one request, for stores that cache: see CachingStore. A view answers from memory
 * or with one local statement, so it answers at once, without a promise per read.
 */
export interface ReadView {
  /** findToken, with the SHA-256 hash as base64 text (hashTokenText). */
  findTokenByHashText(hash: string): TokenOwner | undefined;
  listPlantsJson(owner: string, after: bigint | undefined, limit: number): JsonPlantPage;
}

export interface CachingStore {
  /**
   * Optional: a view for one request. A store that caches checks once, at the view's first
   * read, for changes made elsewhere; the view's later reads trust that check. Plain methods
   * check on every call, so a request that reads twice pays twice.
   */
  readView?(): ReadView;
}

export type Store = PlantStore & TokenStore & CachingStore;
