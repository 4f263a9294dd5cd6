// Requests reach the store in the order they arrived wherever that order can matter, as RFC 9112 (9.3.2)
// asks of pipelined requests: a write request's first store call waits until every request that was whole
// (its body received) before it arrived has been answered, and any request's first store call waits for
// the write requests that were whole before it arrived. So a GET pipelined after a POST on one connection
// lists the new plant, and a GET before it does not. Node starts pipelined requests at once, and the POST,
// which still has its body to parse, would often reach the store out of turn.
//
// No connection is looked at, so the rule holds across connections too. "Answered" is when the answer is
// handed to Node (onSend) or the client has gone, not when it has been read: a client that stops reading
// holds up nobody. Nor does a request whose body is still arriving: nothing pipelined behind it has
// arrived yet, and a slow client cannot stall the others.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlantPage } from '../pagination/page.js';
import type { AddResult, PlantStore, StoredPlant, TokenHash, TokenOwner } from './plant-store.js';

export interface Arrival {
  readonly number: number;
  readonly request: IncomingMessage;
  readonly write: boolean;
  /** Settles once it is answered; made only when someone waits. */
  answered: Promise<void> | undefined;
  settle: () => void;
}

/** Methods that may change the store (RFC 9110, 9.2.1: the unsafe ones). */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class ArrivalOrder {
  #arrivals = 0;
  /** Requests not yet answered, in arrival order; and the write requests among them. */
  readonly #requests = new Set<Arrival>();
  readonly #writes = new Set<Arrival>();

  /** Notes a request's arrival; it counts as answered at `answered(arrival)` or when its client has gone. */
  arrive(request: IncomingMessage, response: ServerResponse): Arrival {
    const write = WRITE_METHODS.has(request.method ?? '');
    const arrival: Arrival = { number: ++this.#arrivals, request, write, answered: undefined, settle: () => undefined };
    this.#requests.add(arrival);
    if (write) this.#writes.add(arrival);
    response.once('close', () => this.answered(arrival));
    return arrival;
  }

  answered(arrival: Arrival): void {
    if (!this.#requests.delete(arrival)) return;
    this.#writes.delete(arrival);
    arrival.settle();
  }

  /** Settles once the requests that `arrival`'s first store call must follow have been answered. */
  before(arrival: Arrival): Promise<void> {
    const waits: Array<Promise<void>> = [];
    for (const earlier of arrival.write ? this.#requests : this.#writes) {
      if (earlier.number >= arrival.number) break;
      if (!earlier.request.complete) continue;
      earlier.answered ??= new Promise<void>((resolve) => (earlier.settle = resolve));
      waits.push(earlier.answered);
    }
    return waits.length === 0 ? Promise.resolve() : Promise.all(waits).then(() => undefined);
  }
}

/** A request's handle whose first call waits its turn (ArrivalOrder.before). */
export class InArrivalOrder implements PlantStore {
  readonly #inner: PlantStore;
  #turn: (() => Promise<void>) | undefined;

  constructor(inner: PlantStore, turn: () => Promise<void>) {
    this.#inner = inner;
    this.#turn = turn;
  }

  async findToken(hash: TokenHash): Promise<TokenOwner | undefined> {
    await this.#myTurn();
    return this.#inner.findToken(hash);
  }

  async listPlants(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage> {
    await this.#myTurn();
    return this.#inner.listPlants(owner, after, limit);
  }

  async addPlant(owner: string, plant: StoredPlant): Promise<AddResult> {
    await this.#myTurn();
    return this.#inner.addPlant(owner, plant);
  }

  async deletePlant(owner: string, id: bigint): Promise<boolean> {
    await this.#myTurn();
    return this.#inner.deletePlant(owner, id);
  }

  #myTurn(): Promise<void> | undefined {
    const turn = this.#turn;
    this.#turn = undefined;
    return turn?.();
  }
}
