// One request's handle on the SQLite store: one look for commits by other connections, at its first cached read.
import type { PlantPage } from '../../pagination/page.js';
import type { AddResult, PlantStore, StoredPlant, TokenHash, TokenOwner } from '../plant-store.js';
import type { TokenUses } from '../token-uses.js';
import type { CachedReads } from './cached-reads.js';

/** The store's writes, which need no look: they run on the store's own connection. */
type Writes = Pick<PlantStore, 'addPlant' | 'deletePlant'>;

/**
 * The handle's first cached read looks for commits by other connections (PRAGMA data_version);
 * its later reads trust that look. The answers stay linearizable (the look happens after the
 * request arrived, before it is answered) for one statement per request instead of one per read.
 * Writes go to the store as they are.
 */
export class SqliteRequestStore implements PlantStore {
  #looked = false;
  readonly #reads: CachedReads;
  readonly #writes: Writes;
  readonly #uses: TokenUses;

  constructor(reads: CachedReads, writes: Writes, uses: TokenUses) {
    this.#reads = reads;
    this.#writes = writes;
    this.#uses = uses;
  }

  #look(): void {
    if (this.#looked) return;
    this.#reads.observe();
    this.#looked = true;
  }

  async findToken(hash: TokenHash): Promise<TokenOwner | undefined> {
    this.#look();
    const owner = this.#reads.tokenOwner(hash);
    if (owner !== undefined) this.#uses.used(owner.tokenId); // noted only: written later, off this request
    return owner;
  }

  async listPlants(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage> {
    if (after === undefined) this.#look(); // later pages are not cached: their query is its own look
    return this.#reads.page(owner, after, limit);
  }

  addPlant(owner: string, plant: StoredPlant): Promise<AddResult> {
    return this.#writes.addPlant(owner, plant);
  }

  deletePlant(owner: string, id: bigint): Promise<boolean> {
    return this.#writes.deletePlant(owner, id);
  }
}
