// Decorates the app with its store and each request with what it may ask of it (`request.store`); closes the store with the app.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { storeCalls } from '../channels.js';
import type { PlantStore, Store } from '../store/plant-store.js';

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
  }
  interface FastifyRequest {
    /** The store as this request sees it: every read and write of a request goes through it. */
    readonly store: PlantStore;
  }
}

/**
 * The store's request calls traced on `storeCalls`: each call's span is current while it runs, so what the store
 * starts for it (a write it queues) is its child.
 */
function tracedStore(store: Store): PlantStore {
  const traced =
    <A extends unknown[], T>(operation: keyof PlantStore, method: (...args: A) => Promise<T>) =>
    (...args: A): Promise<T> => {
      const call = () => method(...args);
      // Checked per call: traces may stop listening while a request runs.
      return storeCalls.hasSubscribers ? storeCalls.tracePromise(call, { store: store.kind, operation }) : call();
    };
  return {
    findToken: traced('findToken', store.findToken.bind(store)),
    listPlants: traced('listPlants', store.listPlants.bind(store)),
    addPlant: traced('addPlant', store.addPlant.bind(store)),
    deletePlant: traced('deletePlant', store.deletePlant.bind(store)),
  };
}

export default fp(
  async function storePlugin(app: FastifyInstance, options: { store: Store }) {
    const store = options.store;
    const traced = tracedStore(store);
    app.decorate('store', store);
    // A getter (Fastify takes no object as a request's decoration): the traced calls only while traces listen,
    // decided at each use, so subscribing later works.
    app.decorateRequest('store', { getter: () => (storeCalls.hasSubscribers ? traced : store) });
    app.addHook('onClose', async () => store.close());
  },
  { name: 'store' },
);
