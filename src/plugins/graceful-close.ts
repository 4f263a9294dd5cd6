// While the app closes, every response says `Connection: close`, so clients do not send another
// request on a connection the server is about to close (which would lose that request or its answer);
// connections that hold no complete request are closed at once, so they cannot hold the close up.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * How long a request whose body is still arriving when the close begins may take to arrive. A body
 * is at most 16 KiB, so a client that is sending gets it here in milliseconds; one that stalls is
 * cut off (nothing of its request was done) instead of holding the deploy for REQUEST_TIMEOUT_MS.
 */
export const BODY_GRACE_MS = 500;

/**
 * The response a connection owes: Node sets it once a request's headers have arrived and clears it
 * when the answer is sent. Node's own closeIdleConnections() reads it the same way; reading it at
 * close costs nothing per request, where tracking every request would.
 */
const owed = (socket: Socket) => (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;

/** No request whose headers and body have all arrived: silent, idle, part of a header block, or a body still arriving. */
const holdsNoCompleteRequest = (socket: Socket) => owed(socket)?.req.complete !== true;

export default fp(
  async function gracefulClose(app: FastifyInstance) {
    let closing = false;
    const sockets = new Set<Socket>();
    app.server.on('connection', (socket: Socket) => {
      // Accepted between the start of the close and the listener's end: nothing was asked yet.
      if (closing) return void socket.destroy();
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });

    app.addHook('preClose', async () => {
      closing = true;
      const arriving: Socket[] = [];
      for (const socket of sockets) {
        if (owed(socket) === null) socket.destroy();
        else if (holdsNoCompleteRequest(socket)) arriving.push(socket);
      }
      if (arriving.length === 0) return;
      // unref: when everything else has finished, the process need not wait for this timer.
      setTimeout(() => {
        for (const socket of arriving) if (holdsNoCompleteRequest(socket)) socket.destroy();
      }, BODY_GRACE_MS).unref();
    });
    // A callback hook, not an async one: it runs on every response, and a promise each time costs more than the check.
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close');
      done(null, payload);
    });
  },
  { name: 'graceful-close' },
);
