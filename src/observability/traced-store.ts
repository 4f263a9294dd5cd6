// A request's store handle whose calls are traced on `storeCalls` while traces listen: each call's span is
// current while it runs, so what the store starts for it (a write it queues) is its child.
import type { PlantStore } from '../store/plant-store.js';
import { storeCalls, type StoreKind } from '../channels.js';

/** Made only while something subscribes (plugins/store.ts): otherwise requests get the plain handle. */
export function tracedStore(inner: PlantStore, store: StoreKind): PlantStore {
  const traced =
    <A extends unknown[], T>(operation: keyof PlantStore, method: (...args: A) => Promise<T>) =>
    (...args: A): Promise<T> => {
      const call = () => method(...args);
      // Checked per call: traces may stop listening while a request runs.
      return storeCalls.hasSubscribers ? storeCalls.tracePromise(call, { store, operation }) : call();
    };
  return {
    findToken: traced('findToken', inner.findToken.bind(inner)),
    listPlants: traced('listPlants', inner.listPlants.bind(inner)),
    addPlant: traced('addPlant', inner.addPlant.bind(inner)),
    deletePlant: traced('deletePlant', inner.deletePlant.bind(inner)),
  };
}
