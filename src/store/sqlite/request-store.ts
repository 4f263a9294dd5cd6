// The handle every request gets on the SQLite store: reads through the turn's read batch, writes through group commit.
import type { PlantPage } from '../../pagination/page.js';
import type { AddResult, PlantStore, StoredPlant, TokenHash, TokenOwner } from '../plant-store.js';
import type { CachedReads } from './cached-reads.js';
import type { ReadBatch } from './read-batch.js';

/** The store's writes, which go to its own connection as they are. */
type Writes = Pick<PlantStore, 'addPlant' | 'deletePlant'>;

/**
 * Reads wait for the read batch of the turn they arrived in (read-batch.ts), which looks for commits
 * by other connections once for all of them; the caches answer inside that batch, as fresh as its
 * look. The handle keeps nothing of its own, so every request shares one.
 */
export class SqliteRequestStore implements PlantStore {
  readonly #batch: ReadBatch;
  readonly #reads: CachedReads;
  readonly #writes: Writes;

  constructor(batch: ReadBatch, reads: CachedReads, writes: Writes) {
    this.#batch = batch;
    this.#reads = reads;
    this.#writes = writes;
  }

  findToken(hash: TokenHash): Promise<TokenOwner | undefined> {
    return this.#batch.run(() => this.#reads.tokenOwner(hash));
  }

  listPlants(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage> {
    return this.#batch.run(() => this.#reads.page(owner, after, limit));
  }

  addPlant(owner: string, plant: StoredPlant): Promise<AddResult> {
    return this.#writes.addPlant(owner, plant);
  }

  deletePlant(owner: string, id: bigint): Promise<boolean> {
    return this.#writes.deletePlant(owner, id);
  }
}
