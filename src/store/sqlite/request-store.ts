// The handle every request gets on the SQLite store: reads through the turn's read batch, writes through group commit.
import { rowsToRead, type PlantPage } from '../../pagination/page.js';
import type { AddResult, PlantStore, StoredPlant, TokenHash, TokenOwner } from '../plant-store.js';
import type { TokenUses } from '../token-uses.js';
import type { CachedReads } from './cached-reads.js';
import type { ReadBatch } from './read-batch.js';

/** A token's owner: one row, and no wait for a commit's sync (read-batch.ts). */
const TOKEN_READ = { durableOnly: false, rows: 1 };

/** The store's writes, which go to its own connection as they are. */
type Writes = Pick<PlantStore, 'addPlant' | 'deletePlant'>;

/**
 * A request's first read waits for the read batch of its turn (read-batch.ts), which looks for
 * commits by other connections once for all of that turn's requests. After that look the caches
 * are as fresh as the request needs (the look came after it arrived), so a later read the caches
 * can answer is answered at once, without waiting for another batch.
 */
export class SqliteRequestStore implements PlantStore {
  #looked = false;
  readonly #batch: ReadBatch;
  readonly #reads: CachedReads;
  readonly #writes: Writes;
  readonly #uses: TokenUses;

  constructor(batch: ReadBatch, reads: CachedReads, writes: Writes, uses: TokenUses) {
    this.#batch = batch;
    this.#reads = reads;
    this.#writes = writes;
    this.#uses = uses;
  }

  /** Runs `read` in the next batch, after its look; `options` as ReadBatch.run has them. */
  #inBatch<T>(read: () => T, options: { durableOnly?: boolean; rows?: number }): Promise<T> {
    return this.#batch.run(() => {
      this.#looked = true;
      return read();
    }, options);
  }

  findToken(hash: TokenHash): Promise<TokenOwner | undefined> {
    // A token's owner need not wait for a commit's sync (read-batch.ts); the request's later reads do.
    return this.#inBatch(() => {
      const owner = this.#reads.tokenOwner(hash);
      if (owner !== undefined) this.#uses.used(owner.tokenId); // noted only: written later, off this request
      return owner;
    }, TOKEN_READ);
  }

  listPlants(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage> {
    const cached = this.#looked && after === undefined ? this.#reads.cachedPage(owner, limit) : undefined;
    return cached === undefined
      ? this.#inBatch(() => this.#reads.page(owner, after, limit), { rows: rowsToRead(limit) })
      : Promise.resolve(cached);
  }

  addPlant(owner: string, plant: StoredPlant): Promise<AddResult> {
    return this.#writes.addPlant(owner, plant);
  }

  deletePlant(owner: string, id: bigint): Promise<boolean> {
    return this.#writes.deletePlant(owner, id);
  }
}
