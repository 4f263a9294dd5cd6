// Requests pipelined on one connection are handled one after the other, so each sees what the ones
// before it did (a GET after a POST lists the new plant). Node starts them all at once, which RFC
// 9112, 9.3.2 allows only when every one of them is safe; their answers go out in order anyway, so
// waiting for the one before costs the client nothing. Public API only: the request's socket, and
// Fastify's hooks for when an answer has been sent or the client has gone.
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

interface Connection {
  /** A request of this connection is being handled. */
  busy: boolean;
  /** Requests waiting for their turn, in arrival order. */
  waiting: Array<() => void>;
}

const connections = new WeakMap<Socket, Connection>();

export default fp(
  async function inOrder(app: FastifyInstance) {
    app.addHook('onRequest', async (request) => {
      const socket = request.raw.socket;
      let connection = connections.get(socket);
      if (connection === undefined) connections.set(socket, (connection = { busy: false, waiting: [] }));
      if (!connection.busy) {
        connection.busy = true;
        return;
      }
      const waiting = connection.waiting;
      await new Promise<void>((resolve) => waiting.push(resolve));
    });
    // The answer is sent: the next request of the connection goes on.
    app.addHook('onResponse', async (request: FastifyRequest) => {
      const connection = connections.get(request.raw.socket);
      if (connection === undefined) return;
      const next = connection.waiting.shift();
      if (next === undefined) connection.busy = false;
      else next();
    });
    // The client has gone: nothing more will be answered on this connection; let the rest end too.
    app.addHook('onRequestAbort', async (request: FastifyRequest) => {
      const connection = connections.get(request.raw.socket);
      if (connection === undefined) return;
      connection.busy = false;
      for (const next of connection.waiting.splice(0)) next();
    });
  },
  { name: 'in-order' },
);
