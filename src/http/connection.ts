// The connection: one record per socket, which serves the socket's pipelined requests in order, holds a refusal
// behind the answers before it, and closes with the app; and the extra sockets that accept on the API's port.
// Public API only: the server's 'connection' event, Fastify's hooks, and each response's own state.
import net, { type AddressInfo } from 'node:net';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyListenOptions, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Requests pipelined on one connection are handled one after the other, so each sees what the ones before it
 * did (a GET after a POST lists the new plant). Node starts them all at once, which RFC 9112, 9.3.2 allows
 * only when every one of them is safe; their answers go out in order anyway, so waiting costs the client nothing.
 */
interface Connection {
  /** The request of this connection being handled. */
  current: FastifyRequest | undefined;
  /** Requests waiting for their turn, in arrival order. */
  waiting: Array<{ request: FastifyRequest; go: () => void }>;
  /** The refusal of what followed them (refuseAfterAnswers), once they are answered. */
  refusal: (() => void) | undefined;
  /** The last response given a request: responses finish in order, so one unfinished means a request in progress. */
  response: ServerResponse | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Each open socket's record, and the extra accept sockets (listenOnAcceptSockets), closed with the app. */
    connections: { open: Map<net.Socket, Connection>; acceptors: net.Server[] };
  }
}

/**
 * How long a request whose body is still arriving when the close begins may take to arrive. A body
 * is at most 16 KiB, so a client that is sending gets it here in milliseconds; one that stalls is
 * cut off (nothing of its request was done) instead of holding the deploy for REQUEST_TIMEOUT_MS.
 */
export const BODY_GRACE_MS = 500;

/** The refusal goes out when no request that arrived whole is left unanswered (one still arriving is what it refuses). */
function refuseIfDue(connection: Connection): void {
  if (connection.refusal === undefined || connection.current?.raw.complete) return;
  const refuse = connection.refusal;
  connection.refusal = () => undefined; // once: nothing after it is read
  refuse();
}

/**
 * Sends `refuse` (answers.ts) only after the answers of the requests that arrived before it on this socket: in their
 * place, it would tell a client that a write it made had changed nothing. The socket reads nothing meanwhile; a second
 * refusal of the same socket is dropped. `refuse` is given the request it refuses when Fastify had begun it.
 */
export function refuseAfterAnswers(app: FastifyInstance, socket: net.Socket, refuse: (refused: FastifyRequest | undefined) => void): void {
  const connection = app.connections.open.get(socket);
  if (connection === undefined) return refuse(undefined);
  if (connection.refusal !== undefined) return;
  socket.pause();
  // Reading again once refused: the client's close, or more bytes (which end the socket), reach Node.
  connection.refusal = () => {
    refuse(connection.current);
    socket.resume();
  };
  // The requests Node parsed just before the error reach the onRequest hook within this turn.
  setImmediate(() => refuseIfDue(connection));
}

export const ACCEPT_SOCKETS = 256;
/**
 * Connections the kernel may hold completed for each socket before we accept them. Node's default, 511, is
 * less than a burst of 1,000 clients: the kernel then drops the rest's SYNs, which come again only after
 * 1 s, 3 s, 7 s. Linux caps it at net.core.somaxconn (4096 since 5.4).
 */
const LISTEN_BACKLOG = 4096;
/** Where Node offers SO_REUSEPORT (its `reusePort` listen option); elsewhere (macOS, Windows) one socket. */
const REUSE_PORT = ['linux', 'freebsd', 'dragonfly', 'sunos', 'aix'].includes(process.platform);

const bind = (server: net.Server, options: net.ListenOptions) =>
  new Promise<void>((resolve, reject) => server.once('error', reject).listen(options, resolve));
const closeAll = (servers: net.Server[]) => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));

/**
 * The API's listen, on ACCEPT_SOCKETS sockets where the platform has SO_REUSEPORT, so that a loaded server still accepts
 * promptly: Node accepts one connection per listening socket per turn of its event loop (libuv/libuv#3696;
 * docs/benchmarks.md). The kernel spreads new connections over the sockets, each handing its own to the one HTTP server's
 * 'connection' event. SO_REUSEPORT would let another process of this user share the port, so a plain bind comes first.
 */
export async function listenOnAcceptSockets(app: FastifyInstance, host: string, port: number): Promise<void> {
  const probe = net.createServer();
  await bind(probe, { host, port });
  const free = (probe.address() as AddressInfo).port; // port 0 asks for a free one: keep the one given
  await new Promise((resolve) => probe.close(resolve));
  // Fastify hands these options to Node's server.listen as they are; its type lacks `reusePort` (the test pins it).
  await app.listen({ host, port: free, backlog: LISTEN_BACKLOG, reusePort: REUSE_PORT } as FastifyListenOptions);
  if (!REUSE_PORT) return;
  const sockets = app.connections.acceptors;
  const { address } = app.server.address() as AddressInfo;
  while (sockets.length < ACCEPT_SOCKETS - 1) {
    // The connection options Node's HTTP server gives the connections it accepts itself (http.createServer).
    const socket = net.createServer({ allowHalfOpen: true, noDelay: true }, (connection) => app.server.emit('connection', connection));
    try {
      await bind(socket, { host: address, port: free, backlog: LISTEN_BACKLOG, reusePort: true });
    } catch (error) {
      // Out of file descriptors, most likely: one socket, as without this, leaves the rest to connections.
      await closeAll(sockets.splice(0));
      app.log.warn(
        { err: error },
        `the API port could not get ${ACCEPT_SOCKETS} sockets, so it keeps one: new connections are accepted slower under overload`,
      );
      return;
    }
    sockets.push(socket);
  }
}

export default fp(
  async function connection(app: FastifyInstance) {
    let closing = false;
    const connections: FastifyInstance['connections'] = { open: new Map(), acceptors: [] };
    app.decorate('connections', connections);
    const { open } = connections;
    app.server.on('connection', (socket: net.Socket) => {
      // Accepted between the start of the close and the listener's end: nothing was asked yet.
      if (closing) return void socket.destroy();
      open.set(socket, { current: undefined, waiting: [], refusal: undefined, response: undefined });
      socket.once('close', () => open.delete(socket));
    });

    // First of the request hooks, so nothing before it reads state. app.inject's socket carries one request: no order.
    app.addHook('onRequest', (request, reply, done) => {
      const connection = open.get(request.raw.socket);
      if (connection === undefined) return done();
      connection.response = reply.raw;
      // By a promise: after the hook of the request before (which calls `go`), in this request's async context (traces).
      if (connection.current !== undefined)
        return void new Promise<void>((go) => connection.waiting.push({ request, go })).then(() => done());
      connection.current = request;
      done();
    });
    // The answer is sent: the next request of the connection goes on.
    app.addHook('onResponse', (request, _reply, done) => {
      const connection = open.get(request.raw.socket);
      if (connection !== undefined) {
        const turn = connection.waiting.shift();
        connection.current = turn?.request;
        turn?.go();
        refuseIfDue(connection);
      }
      done();
    });
    // The client has gone: nothing more will be answered on this connection; let the rest end too.
    app.addHook('onRequestAbort', (request, done) => {
      const connection = open.get(request.raw.socket);
      if (connection === undefined) return done();
      connection.current = undefined;
      for (const { go } of connection.waiting.splice(0)) go();
      refuseIfDue(connection);
      done();
    });

    /**
     * At close, connections that hold no request in progress are closed at once and a body still arriving gets
     * BODY_GRACE_MS, so neither can hold the close up; a request in flight finishes, its answer saying `Connection: close`.
     * Fastify's own close (forceCloseConnections 'idle') leaves what Node does not count as idle (a silent connection,
     * half a header block or body) open until Node's request timeout, and marks only requests that arrive after it began.
     */
    app.addHook('preClose', async () => {
      closing = true;
      const arriving: ServerResponse['req'][] = [];
      for (const [socket, { response }] of open) {
        // Silent, idle between requests, or part of a header block: nothing of a request can be lost.
        if (response === undefined || response.writableFinished) socket.destroy();
        else {
          if (!response.headersSent) response.setHeader('connection', 'close');
          if (!response.req.complete) arriving.push(response.req);
        }
      }
      // unref: when everything else has finished, the process need not wait for this timer.
      if (arriving.length > 0)
        setTimeout(() => {
          for (const request of arriving) if (!request.complete) request.socket.destroy();
        }, BODY_GRACE_MS).unref();
      // Stop accepting on the extra sockets too, and wait for the connections they accepted, which the HTTP
      // server's own close does not count.
      await closeAll(connections.acceptors.splice(0));
    });
  },
  { name: 'connection' },
);
