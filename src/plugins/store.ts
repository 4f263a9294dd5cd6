// Decorates the app with its store and each request with its own handle on it (`request.store`), whose
// first call keeps the order of arrival (store/arrival-order.ts); closes the store with the app.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { storeCallTimes, storeCalls } from '../observability/channels.js';
import { TracedStore } from '../observability/traced-store.js';
import { ArrivalOrder, InArrivalOrder, type Arrival } from '../store/arrival-order.js';
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
/** When the request arrived, which its first store call keeps to. */
const ARRIVAL = Symbol('arrival');

type StoreRequest = FastifyRequest & { [HANDLE]: PlantStore | null; [ARRIVAL]: Arrival | null };

export default fp(
  async function storePlugin(app: FastifyInstance, options: { store: Store }) {
    const store = options.store;
    app.decorate('store', store);
    // Made on first use, not in a hook: requests that never touch the store (health, docs) pay nothing.
    app.decorateRequest(HANDLE, null);
    app.decorateRequest(ARRIVAL, null);
    const order = new ArrivalOrder();
    app.decorateRequest('store', {
      getter(this: FastifyRequest) {
        const request = this as StoreRequest;
        if (request[HANDLE] !== null) return request[HANDLE];
        // Traced only while metrics or traces listen; decided per request, so subscribing later works.
        const handle =
          storeCalls.hasSubscribers || storeCallTimes.hasSubscribers ? new TracedStore(store.forRequest(), store.kind) : store.forRequest();
        const arrival = request[ARRIVAL];
        return (request[HANDLE] = arrival === null ? handle : new InArrivalOrder(handle, () => order.before(arrival)));
      },
    });
    // The first request hook (app.ts registers this plugin before any other that has one).
    app.addHook('onRequest', async (request, reply) => {
      (request as StoreRequest)[ARRIVAL] = order.arrive(request.raw, reply.raw);
    });
    // Answered once handed to Node: a client that does not read its answers holds up nobody.
    app.addHook('onSend', async (request, _reply, payload) => {
      const arrival = (request as StoreRequest)[ARRIVAL];
      if (arrival !== null) order.answered(arrival);
      return payload;
    });
    app.addHook('onClose', async () => store.close());
  },
  { name: 'store' },
);
