// Entry: configuration from the environment, buildApp, listen, and a graceful close (close-with-grace) on signals and uncaught errors.
import './platform/refuse-unsupported-node.js'; // first: before any module an old Node could crash on
import { pathToFileURL } from 'node:url';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { printBootstrapToken } from './auth/bootstrap-token.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { describeDatabase } from './store/describe-database.js';
import { openStore } from './store/open-store.js';
import type { StoreLog } from './store/plant-store.js';
import { listenOnAcceptSockets } from './http/connection.js';

const SHUTDOWN_LIMIT_MS = 10_000;

/** Node's listen errors for one port, said in terms of the settings that chose its address; printed alone, on one line. */
function listenProblem(what: string, port: string, host: string, address: string) {
  return (error: unknown): never => {
    const { code, message } = error as NodeJS.ErrnoException;
    const problems: Record<string, string> = {
      EADDRINUSE: `${port} ${address} is already in use (another process listens there); stop that process or set ${port} to a free port`,
      EACCES: `${port} ${address} may not be opened by this user (ports below 1024 need privileges); set ${port} to 1024 or above`,
      EADDRNOTAVAIL: `${host} ${address} is not an address of this machine; set ${host} to one of its addresses, 127.0.0.1 or 0.0.0.0`,
    };
    const unresolved = `${host} ${address} is neither an IP address nor a name this machine can resolve; set ${host} to an address such as 127.0.0.1 or 0.0.0.0`;
    for (const name of ['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL']) problems[name] = unresolved;
    const problem = problems[code ?? ''] ?? `cannot listen on ${address} (${port}, ${host}): ${message}`;
    throw new Error(`cannot open the ${what} port: ${problem}`, { cause: error });
  };
}

/**
 * Opens the metrics port, then the API's: once the API listens, everything has started (a failed
 * metrics port never follows an API that said it listens). On any failure both are closed again.
 */
async function listenAll(app: FastifyInstance, config: Config): Promise<void> {
  try {
    if (app.metrics) {
      await app.ready();
      const address = `${config.metricsHost}:${config.metricsPort}`;
      const url = await app.metrics.listen().catch(listenProblem('metrics', 'METRICS_PORT', 'METRICS_HOST', address));
      app.log.info({ url }, 'serving metrics');
    }
    const address = `${config.host}:${config.port}`;
    await listenOnAcceptSockets(app, config.host, config.port).catch(listenProblem('API', 'PORT', 'HOST', address));
  } catch (error) {
    await app.close(); // closes the store and any port opened above
    throw error;
  }
}

/**
 * An identity provider that cannot be used is said at start, with the real cause (unreachable, not JSON,
 * another issuer), as a warning: start-up goes on, and provider tokens answer 503 until it can be used.
 */
async function checkProvider(app: FastifyInstance, issuer: string): Promise<void> {
  const { discover } = await import('./auth/oidc/provider-tokens.js');
  try {
    await discover(issuer);
    app.log.info({ issuer }, 'the OpenID provider is reachable');
  } catch (error) {
    app.log.warn(
      { issuer, reason: (error as Error).message },
      'OIDC_ISSUER: the OpenID provider cannot be used; provider access tokens answer 503 until it can',
    );
  }
}

export async function serve(): Promise<void> {
  const config = loadConfig();
  const database = describeDatabase(config).text;
  // What happens to the database is logged by the app, built next: while the store opens (migrations applied, the
  // backup taken before them), lines wait for it; later ones (a full disk, damage, the file deleted) go at once.
  let app: FastifyInstance | undefined;
  const early: Array<[level: 'error' | 'info', details: object, message: string]> = [];
  const storeLog: StoreLog = {
    error: (details, message) => (app ? app.log.error(details, message) : early.push(['error', details, message])),
    info: (details, message) => (app ? app.log.info(details, message) : early.push(['info', details, message])),
  };
  const store = await openStore(config, storeLog).catch((error: unknown) => {
    // No app to log them: a backup taken before a migration that then failed is still said, with its path.
    for (const [, , message] of early) process.stderr.write(`plant-store: ${message}\n`);
    // The failure names the setting, and the file unless its message does.
    const setting = config.databaseUrl === undefined ? 'DATABASE_PATH' : 'DATABASE_URL';
    const { message } = error as Error;
    const named = message.includes(database.replace(/^SQLite file /, '')) ? setting : `${setting} (${database})`;
    throw new Error(`${named}: ${message}`, { cause: error });
  });
  try {
    app = await buildApp(config, { store });
  } catch (error) {
    await store.close();
    throw error;
  }
  for (const [level, details, message] of early.splice(0)) app.log[level](details, message);
  app.log.info({ database }, 'using the database');

  // fastify/demo's shutdown: a signal closes the app (requests in flight finish) and exits 0; an uncaught error is
  // logged and closes the same way, exiting 1, as does the delay passing. Installed before listening, it waits for the
  // start: a signal while the bootstrap token is made neither kills the process half-way nor closes the store under it.
  let starting: Promise<void> = Promise.resolve();
  closeWithGrace(
    {
      delay: SHUTDOWN_LIMIT_MS,
      logger: { error: (problem: unknown) => app.log.error(problem instanceof Error ? { err: problem } : {}, String(problem)) },
      onTimeout: () => app.log.error(`requests did not finish within ${SHUTDOWN_LIMIT_MS / 1000} seconds; exiting anyway`),
    },
    async ({ err, signal }) => {
      if (err) app.log.error({ err }, 'uncaught error; shutting down');
      else app.log.info({ signal }, 'shutting down: finishing requests in flight');
      await starting.catch(() => undefined);
      await app.close();
      // close-with-grace then calls process.exit, which drops what stdout has not written yet (a stalled reader):
      // the callback of an empty write comes once everything before it is written.
      await new Promise((resolve) => process.stdout.write('', resolve));
    },
  );
  starting = (async () => {
    await listenAll(app, config);
    // Only now, listening: a start that failed above has created no token and printed nothing about one.
    await printBootstrapToken(config, app.store);
  })();
  await starting;
  if (config.oidc !== undefined) void checkProvider(app, config.oidc.issuer);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  serve().catch((error: unknown) => {
    // A refused setting names itself; anything else is said as a start that failed.
    const reason = error instanceof ConfigError ? error.message : `could not start: ${(error as Error).message}`;
    process.stderr.write(`plant-store: ${reason}\n`);
    process.exit(1);
  });
}
