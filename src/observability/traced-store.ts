// A request's store handle whose calls are traced on `storeCalls` while traces listen: each call's span is
// current while it runs, so what the store starts for it (a write it queues) is its child.
import type { PlantStore, StoredPlant, TokenHash } from '../store/plant-store.js';
import { storeCalls, type StoreKind } from '../channels.js';

/** Made only while something subscribes (plugins/store.ts): otherwise requests get the plain handle. */
export class TracedStore implements PlantStore {
  readonly #inner: PlantStore;
  readonly #kind: StoreKind;

  constructor(inner: PlantStore, kind: StoreKind) {
    this.#inner = inner;
    this.#kind = kind;
  }

  findToken(hash: TokenHash) {
    return this.#call('findToken', () => this.#inner.findToken(hash));
  }

  listPlants(owner: string, after: bigint | undefined, limit: number) {
    return this.#call('listPlants', () => this.#inner.listPlants(owner, after, limit));
  }

  addPlant(owner: string, plant: StoredPlant) {
    return this.#call('addPlant', () => this.#inner.addPlant(owner, plant));
  }

  deletePlant(owner: string, id: bigint) {
    return this.#call('deletePlant', () => this.#inner.deletePlant(owner, id));
  }

  #call<T>(operation: keyof PlantStore, call: () => Promise<T>): Promise<T> {
    // Checked per call: traces may stop listening while a request runs.
    return storeCalls.hasSubscribers ? storeCalls.tracePromise(call, { store: this.#kind, operation }) : call();
  }
}
