// More sockets listening on the API's port, so that a loaded server still accepts new connections promptly.
// Node accepts one connection per listening socket per turn of its event loop (libuv/libuv#3696), and a
// turn under load lasts 100 ms or more: with 1,000 clients some waited 10 s in the kernel's queue. With
// SO_REUSEPORT the kernel spreads new connections over ACCEPT_SOCKETS sockets, each accepting one a turn,
// and hands each to the one HTTP server through its 'connection' event, as Node documents.
// `npm run bench:overload` measures the longest wait with and without them (docs/operations.md, "Connections before they are accepted").
import net, { type AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyListenOptions } from 'fastify';
import fp from 'fastify-plugin';

export const ACCEPT_SOCKETS = 256;
/**
 * Connections the kernel may hold completed for each socket before we accept them. Node's default, 511, is
 * less than a burst of 1,000 clients: the kernel then drops the rest's SYNs, which come again only after
 * 1 s, 3 s, 7 s. Linux caps it at net.core.somaxconn (4096 since 5.4).
 */
export const LISTEN_BACKLOG = 4096;
/** Where Node offers SO_REUSEPORT (its `reusePort` listen option); elsewhere (macOS, Windows) one socket. */
const REUSE_PORT = ['linux', 'freebsd', 'dragonfly', 'sunos', 'aix'].includes(process.platform);

/** The sockets added to each app's port by listenOnAcceptSockets, closed by the plugin with the app. */
const added = new WeakMap<FastifyInstance, net.Server[]>();

const bind = (server: net.Server, options: net.ListenOptions) =>
  new Promise<void>((resolve, reject) => server.once('error', reject).listen(options, resolve));
const closeAll = (servers: net.Server[]) => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));

/**
 * The API's listen, on ACCEPT_SOCKETS sockets where the platform has SO_REUSEPORT. With it a second process
 * of this user could bind the port too and quietly take a share of the connections, so a plain bind comes
 * first: a port in use is refused, as with one socket.
 */
export async function listenOnAcceptSockets(app: FastifyInstance, host: string, port: number): Promise<void> {
  const probe = net.createServer();
  await bind(probe, { host, port });
  const free = (probe.address() as AddressInfo).port; // port 0 asks for a free one: keep the one given
  await new Promise((resolve) => probe.close(resolve));
  // Fastify hands these options to Node's server.listen as they are; its type lacks `reusePort` (the test pins it).
  await app.listen({ host, port: free, backlog: LISTEN_BACKLOG, reusePort: REUSE_PORT } as FastifyListenOptions);
  if (!REUSE_PORT) return;
  const sockets: net.Server[] = [];
  added.set(app, sockets);
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
  async function acceptSockets(app: FastifyInstance) {
    // After graceful-close's (idle connections closed, the others told to close): stop accepting here too, and
    // wait for the connections these sockets accepted, which the HTTP server's own close does not count.
    app.addHook('preClose', async () => {
      await closeAll(added.get(app) ?? []);
    });
  },
  { name: 'accept-sockets', dependencies: ['graceful-close'] },
);
