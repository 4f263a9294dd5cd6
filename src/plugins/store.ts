// Decorates the app with its store and each request with its own handle on it (`request.store`); closes the store with the app.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { storeCalls } from '../channels.js';
import { tracedStore } from '../observability/traced-store.js';
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
