// A request's store handle whose calls are published: traced on `storeCalls` while traces listen,
// timed on `storeCallTimes` while metrics listen.
import { performance } from 'node:perf_hooks';
import type { PlantStore, StoredPlant, TokenHash } from '../store/plant-store.js';
import { storeCallTimes, storeCalls, type StoreCallTime, type StoreKind } from './channels.js';

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

  // Timing is done here rather than from the tracing channel's five events: metrics, on by default
  // in production, pay one message per call instead of tracePromise's closures and publications.
  #call<T>(operation: keyof PlantStore, call: () => Promise<T>): Promise<T> {
    const store = this.#kind;
    const run = storeCalls.hasSubscribers ? () => storeCalls.tracePromise(call, { store, operation }) : call;
    if (!storeCallTimes.hasSubscribers) return run();
    const started = performance.now();
    const settled = (outcome: StoreCallTime['outcome']) => {
      const time: StoreCallTime = { store, operation, outcome, seconds: (performance.now() - started) / 1000 };
      storeCallTimes.publish(time);
    };
    let promise: Promise<T>;
    try {
      promise = run();
    } catch (error) {
      settled('error');
      throw error;
    }
    return promise.then(
      (value) => {
        settled('ok');
        return value;
      },
      (error: unknown) => {
        settled('error');
        throw error;
      },
    );
  }
}
