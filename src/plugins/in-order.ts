// Requests pipelined on one connection are handled one after the other, so each sees what the ones
// before it did (a GET after a POST lists the new plant). Node reads and starts them at once; RFC
// 9112, 9.3.2 allows that only when all of them are safe, and only the order of answers is kept.
import { AsyncResource } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The response a connection is answering now (Node queues the responses of pipelined requests
 * behind it and moves the next one up when it finishes). Reading it costs nothing per request;
 * app.inject's requests have no such socket, and are never pipelined.
 */
const current = (socket: (Socket & { _httpMessage?: ServerResponse | null }) | undefined) => socket?._httpMessage ?? null;

interface Waiting {
  response: ServerResponse;
  go: () => void;
}

/** Requests waiting for their turn, per connection, in arrival order. */
const waiting = new WeakMap<Socket, Waiting[]>();

/** Lets the waiting requests whose turn has come go on, then waits for the next answer to close. */
function release(socket: Socket, queue: Waiting[]): void {
  for (
    let head = current(socket);
    queue.length > 0 && (head === null || head === queue[0]!.response || socket.destroyed);
    head = current(socket)
  ) {
    queue.shift()!.go();
  }
  if (queue.length === 0) return void waiting.delete(socket);
  // One listener per connection at a time, on the answer in progress: 'close' comes after
  // 'finish', by when Node has moved the next response up (or the connection is gone).
  current(socket)!.once('close', () => release(socket, queue));
}

export default fp(
  async function inOrder(app: FastifyInstance) {
    // A callback hook, not an async one: it runs on every request, and the common case (nothing
    // pipelined ahead) must not cost a promise.
    app.addHook('onRequest', (request, reply, done) => {
      const socket = request.raw.socket as Socket | undefined;
      const ahead = current(socket);
      if (ahead === null || ahead === reply.raw) return done();
      // Bound: the request goes on in its own async context, not in that of the answer that let it go
      // (a trace would otherwise put its store calls under the request before it).
      const entry = { response: reply.raw, go: AsyncResource.bind(done) };
      const queue = waiting.get(socket!);
      if (queue !== undefined) return void queue.push(entry);
      const fresh = [entry];
      waiting.set(socket!, fresh);
      release(socket!, fresh);
    });
  },
  { name: 'in-order' },
);
