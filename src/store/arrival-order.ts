// Requests reach the store in the order they arrived whenever that order can matter: a request's first
// store call waits until every write request that was whole (its body received) before it arrived has
// been answered, so it joins the store's queue after those writes. That is what a client pipelining a
// GET after a POST on one connection expects (the GET lists the new plant): Node starts both at once,
// and the POST, which still has its body to parse, would often reach the store second. The same rule
// holds across connections, without looking at any. A write whose body is still arriving holds nobody
// up, so a slow client cannot stall the others; the request pipelined behind it cannot have arrived yet.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlantPage } from '../pagination/page.js';
import type { AddResult, PlantStore, StoredPlant, TokenHash, TokenOwner } from './plant-store.js';

interface WriteRequest {
  arrived: number;
  request: IncomingMessage;
  /** Settles once it is answered (or its client has gone); made only when someone waits. */
  answered: Promise<void> | undefined;
  settle: () => void;
}

/** Methods that may change the store (RFC 9110, 9.2.1: the unsafe ones). */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class ArrivalOrder {
  #arrivals = 0;
  /** Write requests not yet answered, in arrival order. */
  readonly #writes = new Set<WriteRequest>();

  /** Notes a request's arrival; returns what its first store call must wait for. */
  arrive(request: IncomingMessage, response: ServerResponse): () => Promise<void> {
    const arrived = ++this.#arrivals;
    if (WRITE_METHODS.has(request.method ?? '')) {
      const write: WriteRequest = { arrived, request, answered: undefined, settle: () => undefined };
      this.#writes.add(write);
      // 'close' comes once the answer is sent, after the write it reports is durable, or when the client has gone.
      response.once('close', () => {
        this.#writes.delete(write);
        write.settle();
      });
    }
    return () => this.#before(arrived);
  }

  #before(arrived: number): Promise<void> {
    const waits: Array<Promise<void>> = [];
    for (const write of this.#writes) {
      if (write.arrived >= arrived) break;
      if (!write.request.complete) continue;
      write.answered ??= new Promise<void>((resolve) => (write.settle = resolve));
      waits.push(write.answered);
    }
    return waits.length === 0 ? Promise.resolve() : Promise.all(waits).then(() => undefined);
  }
}

/** A request's handle whose first call waits for the writes that arrived whole before the request. */
export class InArrivalOrder implements PlantStore {
  readonly #inner: PlantStore;
  #before: (() => Promise<void>) | undefined;

  constructor(inner: PlantStore, before: () => Promise<void>) {
    this.#inner = inner;
    this.#before = before;
  }

  async findToken(hash: TokenHash): Promise<TokenOwner | undefined> {
    await this.#turn();
    return this.#inner.findToken(hash);
  }

  async listPlants(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage> {
    await this.#turn();
    return this.#inner.listPlants(owner, after, limit);
  }

  async addPlant(owner: string, plant: StoredPlant): Promise<AddResult> {
    await this.#turn();
    return this.#inner.addPlant(owner, plant);
  }

  async deletePlant(owner: string, id: bigint): Promise<boolean> {
    await this.#turn();
    return this.#inner.deletePlant(owner, id);
  }

  #turn(): Promise<void> | undefined {
    const before = this.#before;
    this.#before = undefined;
    return before?.();
  }
}
