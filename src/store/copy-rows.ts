// Every plant and token of a database, in one canonical form both stores read and write (`plant-store copy`),
// and the tally (counts and a SHA-256 of the rows in order) that shows two databases hold the same rows.
import { createHash } from 'node:crypto';

export interface PlantRecord {
  owner: string;
  id: bigint;
  name: string;
  tag: string | null;
}

/** Every column of a token; times as ISO 8601 UTC text to the millisecond, the form both stores show (listTokens). */
export interface TokenRecord {
  id: bigint;
  user: string;
  hash: Buffer;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/** A database's rows in batches, in one snapshot: plants by owner (byte order) then id, tokens by id. */
export interface Rows {
  plants(): AsyncIterable<PlantRecord[]>;
  tokens(): AsyncIterable<TokenRecord[]>;
}

/** Where a copy writes: one transaction, committed only when the rows read back tally with the source's. */
export interface CopyTarget extends Rows {
  /** What the target holds already: a copy goes only into an empty database. */
  counts(): Promise<{ plants: number; tokens: number }>;
  addPlants(batch: PlantRecord[]): Promise<void>;
  /** Keeps every id; the target hands out the next id after the largest (PostgreSQL's identity sequence is moved). */
  addTokens(batch: TokenRecord[]): Promise<void>;
  commit(): Promise<void>;
  /** Undoes everything; never throws. */
  abandon(): Promise<void>;
}

export interface Tally {
  plants: number;
  tokens: number;
  /** SHA-256 (hex) of one JSON array a line per row, in the order of Rows. */
  plantsSha256: string;
  tokensSha256: string;
}

const plantLine = (plant: PlantRecord) => JSON.stringify([plant.owner, String(plant.id), plant.name, plant.tag]) + '\n';
const tokenLine = (token: TokenRecord) =>
  JSON.stringify([
    String(token.id),
    token.user,
    token.hash.toString('hex'),
    token.createdAt,
    token.expiresAt,
    token.revokedAt,
    token.lastUsedAt,
  ]) + '\n';

/** Counts and checksums of `rows`, read on their own: a copy compares the source's with the target's. */
export async function tally(rows: Rows): Promise<Tally> {
  const plantsHash = createHash('sha256');
  const tokensHash = createHash('sha256');
  let plants = 0;
  let tokens = 0;
  for await (const batch of rows.plants()) {
    plants += batch.length;
    plantsHash.update(batch.map(plantLine).join(''));
  }
  for await (const batch of rows.tokens()) {
    tokens += batch.length;
    tokensHash.update(batch.map(tokenLine).join(''));
  }
  return { plants, tokens, plantsSha256: plantsHash.digest('hex'), tokensSha256: tokensHash.digest('hex') };
}

/** Rows read in batches of this many: a batch of plants at their largest (200-character names) is about 1 MB. */
export const COPY_BATCH = 5000;
