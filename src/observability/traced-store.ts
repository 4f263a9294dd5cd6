// A request's store handle whose calls are published on `storeCalls`, for metrics and traces.
import type { PlantStore } from '../store/plant-store.js';
import { storeCalls, type StoreKind } from './channels.js';

/** Made only while something subscribes (plugins/store.ts): otherwise requests get the plain handle. */
export class TracedStore implements PlantStore {
  readonly #inner: PlantStore;
  readonly #kind: StoreKind;

  constructor(inner: PlantStore, kind: StoreKind) {
    this.#inner = inner;
    this.#kind = kind;
  }

  findToken(...args: Parameters<PlantStore['findToken']>) {
    return storeCalls.tracePromise(() => this.#inner.findToken(...args), { store: this.#kind, operation: 'findToken' });
  }

  listPlants(...args: Parameters<PlantStore['listPlants']>) {
    return storeCalls.tracePromise(() => this.#inner.listPlants(...args), { store: this.#kind, operation: 'listPlants' });
  }

  addPlant(...args: Parameters<PlantStore['addPlant']>) {
    return storeCalls.tracePromise(() => this.#inner.addPlant(...args), { store: this.#kind, operation: 'addPlant' });
  }

  deletePlant(...args: Parameters<PlantStore['deletePlant']>) {
    return storeCalls.tracePromise(() => this.#inner.deletePlant(...args), { store: this.#kind, operation: 'deletePlant' });
  }
}
