// Requests pipelined on one connection are handled one after the other, so each sees what the ones
// before it did (a GET after a POST lists the new plant). Node starts them all at once, which RFC
// 9112, 9.3.2 allows only when every one of them is safe; their answers go out in order anyway, so
// waiting for the one before costs the client nothing. Public API only: the request's socket, and
// Fastify's hooks for when an answer has been sent or the client has gone.
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

interface Connection {
  /** The request of this connection being handled. */
  current: FastifyRequest | undefined;
  /** Requests waiting for their turn, in arrival order. */
  waiting: Array<{ request: FastifyRequest; go: () => void }>;
  /** The refusal of what followed them (refuseAfterAnswers), once they are answered. */
  refusal: (() => void) | undefined;
}

const connections = new WeakMap<Socket, Connection>();

function connectionOf(socket: Socket): Connection {
  let connection = connections.get(socket);
  if (connection === undefined) connections.set(socket, (connection = { current: undefined, waiting: [], refusal: undefined }));
  return connection;
}

/** The refusal goes out when no request that arrived whole is left unanswered (one still arriving is what it refuses). */
function refuseIfDue(connection: Connection): void {
  if (connection.refusal === undefined || connection.current?.raw.complete) return;
  const refuse = connection.refusal;
  connection.refusal = () => undefined; // once: nothing after it is read
  refuse();
}

/** The next request of the connection goes on. */
function next(connection: Connection): void {
  const turn = connection.waiting.shift();
  connection.current = turn?.request;
  turn?.go();
  refuseIfDue(connection);
}

/**
 * Sends `refuse` (an answer to bytes that are not HTTP, or to a request too slow to arrive:
 * node-errors.ts) only after the answers of the requests that arrived before it on this socket:
 * in their place, it would tell a client that a write it made had changed nothing. The socket reads
 * nothing meanwhile; a second refusal of the same socket is dropped. `refuse` is given the request it
 * refuses when Fastify had begun it (its body broke off or came too slowly), so the answer carries its id.
 */
export function refuseAfterAnswers(socket: Socket, refuse: (refused: FastifyRequest | undefined) => void): void {
  const connection = connectionOf(socket);
  if (connection.refusal !== undefined) return;
  socket.pause();
  // Reading again once refused: the client's close, or more bytes (which end the socket), reach Node.
  connection.refusal = () => {
    refuse(connection.current);
    socket.resume();
  };
  // The requests Node parsed just before the error reach this plugin's hook within this turn.
  setImmediate(() => refuseIfDue(connection));
}

export default fp(
  async function inOrder(app: FastifyInstance) {
    app.addHook('onRequest', async (request) => {
      const connection = connectionOf(request.raw.socket);
      if (connection.current === undefined) {
        connection.current = request;
        return;
      }
      const waiting = connection.waiting;
      await new Promise<void>((go) => waiting.push({ request, go }));
    });
    // The answer is sent: the next request of the connection goes on.
    app.addHook('onResponse', async (request: FastifyRequest) => {
      const connection = connections.get(request.raw.socket);
      if (connection !== undefined) next(connection);
    });
    // The client has gone: nothing more will be answered on this connection; let the rest end too.
    app.addHook('onRequestAbort', async (request: FastifyRequest) => {
      const connection = connections.get(request.raw.socket);
      if (connection === undefined) return;
      connection.current = undefined;
      for (const { go } of connection.waiting.splice(0)) go();
      refuseIfDue(connection);
    });
  },
  { name: 'in-order' },
);
