// Requests pipelined on one connection are handled one after the other, so each sees what the ones
// before it did (a GET after a POST lists the new plant). Node reads and starts them at once; RFC
// 9112, 9.3.2 allows that only when all of them are safe, and only the order of answers is kept.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The response a connection is answering now (Node queues the responses of pipelined requests
 * behind it and moves the next one up when it finishes). Reading it costs nothing per request;
 * app.inject's requests have no such socket, and are never pipelined.
 */
const current = (socket: Socket | undefined) => (socket as (Socket & { _httpMessage?: ServerResponse | null }) | undefined)?._httpMessage ?? null;

/** Calls `go` once `response` is the one its connection is answering: every request before it has been answered. */
function whenFirst(socket: Socket, response: ServerResponse, go: () => void): void {
  const ahead = current(socket);
  if (ahead === null || ahead === response || socket.destroyed) return go();
  // 'close' comes after 'finish', by when Node has moved the next response up (or the connection is gone).
  ahead.once('close', () => whenFirst(socket, response, go));
}

export default fp(
  async function inOrder(app: FastifyInstance) {
    // A callback hook, not an async one: it runs on every request, and the common case (nothing
    // pipelined ahead) must not cost a promise.
    app.addHook('onRequest', (request, reply, done) => {
      const socket = request.raw.socket as Socket | undefined;
      const ahead = current(socket);
      if (ahead === null || ahead === reply.raw) return done();
      whenFirst(socket!, reply.raw, done);
    });
  },
  { name: 'in-order' },
);
