// Decorates the app with its store and each request with its own handle on it (`request.store`); closes the store with the app.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { storeCalls, type StoreKind } from '../channels.js';
import type { PlantStore, Store } from '../store/plant-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
  }
  interface FastifyRequest {
    /** This request's handle on the store: every read and write of a request goes through it. */
    readonly store: PlantStore;
  }
}

/**
 * A handle whose calls are traced on `storeCalls`, made only while traces listen: each call's span is current
 * while it runs, so what the store starts for it (a write it queues) is its child.
 */
function tracedStore(inner: PlantStore, store: StoreKind): PlantStore {
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

/** Where a request keeps its handle once made. */
const HANDLE = Symbol('store handle');

export default fp(
  async function storePlugin(app: FastifyInstance, options: { store: Store }) {
    const store = options.store;
    app.decorate('store', store);
    // Made on first use, not in a hook: requests that never touch the store (health, docs) pay nothing.
    app.decorateRequest(HANDLE, null);
    app.decorateRequest('store', {
      getter(this: FastifyRequest) {
        const request = this as FastifyRequest & { [HANDLE]: PlantStore | null };
        // Traced only while traces listen; decided per request, so subscribing later works.
        return (request[HANDLE] ??= storeCalls.hasSubscribers ? tracedStore(store.forRequest(), store.kind) : store.forRequest());
      },
    });
    app.addHook('onClose', async () => store.close());
  },
  { name: 'store' },
);
