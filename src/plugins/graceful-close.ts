// At close, connections that hold no request in progress are closed at once and a body still arriving gets
// BODY_GRACE_MS, so neither can hold the close up; a request in flight finishes, its answer saying `Connection: close`.
import type { IncomingMessage, ServerResponse } from 'node:http';
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
 * Why this plugin tracks connections itself: Fastify's close (forceCloseConnections 'idle', the
 * default, and server.close()) closes only the connections Node counts as idle; a silent connection,
 * half a header block and half a body were all still open 3 s after app.close() began (Fastify 5.12,
 * Node 24), held until Node's request timeout; and Fastify marks `Connection: close` only on requests
 * that arrive once the close has begun. Public APIs only: the server's 'connection' and 'request'
 * events, and each response's own state (writableFinished, headersSent, req.complete).
 */
export default fp(
  async function gracefulClose(app: FastifyInstance) {
    let closing = false;
    // Each open connection and the last response it was given a request for (undefined: none yet).
    // A connection's responses finish in order, so the last one unfinished means a request is in progress.
    const connections = new Map<Socket, ServerResponse | undefined>();
    app.server.on('connection', (socket: Socket) => {
      // Accepted between the start of the close and the listener's end: nothing was asked yet.
      if (closing) return void socket.destroy();
      connections.set(socket, undefined);
      socket.once('close', () => connections.delete(socket));
    });
    app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (connections.has(request.socket)) connections.set(request.socket, response);
    });

    app.addHook('preClose', async () => {
      closing = true;
      const arriving: IncomingMessage[] = [];
      for (const [socket, response] of connections) {
        // Silent, idle between requests, or part of a header block: nothing of a request can be lost.
        if (response === undefined || response.writableFinished) socket.destroy();
        else {
          if (!response.headersSent) response.setHeader('connection', 'close');
          if (!response.req.complete) arriving.push(response.req);
        }
      }
      if (arriving.length === 0) return;
      // unref: when everything else has finished, the process need not wait for this timer.
      setTimeout(() => {
        for (const request of arriving) if (!request.complete) request.socket.destroy();
      }, BODY_GRACE_MS).unref();
    });
  },
  { name: 'graceful-close' },
);
