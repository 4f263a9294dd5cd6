// Decorates the app with its store and each request with its own handle on it (`request.store`), whose
// first call keeps the order of arrival (store/arrival-order.ts); closes the store with the app.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { storeCallTimes, storeCalls } from '../observability/channels.js';
import { TracedStore } from '../observability/traced-store.js';
import { ArrivalOrder, InArrivalOrder } from '../store/arrival-order.js';
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
/** What a request's first store call waits for, noted when it arrived. */
const BEFORE = Symbol('writes before');

type StoreRequest = FastifyRequest & { [HANDLE]: PlantStore | null; [BEFORE]: (() => Promise<void>) | null };

export default fp(
  async function storePlugin(app: FastifyInstance, options: { store: Store }) {
    const store = options.store;
    app.decorate('store', store);
    // Made on first use, not in a hook: requests that never touch the store (health, docs) pay nothing.
    app.decorateRequest(HANDLE, null);
    app.decorateRequest(BEFORE, null);
    app.decorateRequest('store', {
      getter(this: FastifyRequest) {
        const request = this as StoreRequest;
        if (request[HANDLE] !== null) return request[HANDLE];
        // Traced only while metrics or traces listen; decided per request, so subscribing later works.
        const handle =
          storeCalls.hasSubscribers || storeCallTimes.hasSubscribers ? new TracedStore(store.forRequest(), store.kind) : store.forRequest();
        return (request[HANDLE] = request[BEFORE] === null ? handle : new InArrivalOrder(handle, request[BEFORE]));
      },
    });
    const order = new ArrivalOrder();
    // The first request hook (registered before any other that could reach the store).
    app.addHook('onRequest', async (request, reply) => {
      (request as StoreRequest)[BEFORE] = order.arrive(request.raw, reply.raw);
    });
    app.addHook('onClose', async () => store.close());
  },
  { name: 'store' },
);
