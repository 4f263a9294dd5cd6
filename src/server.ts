// Entry: configuration from the environment, buildApp, listen, and a graceful close on signals.
import './platform/refuse-unsupported-node.js'; // first: before any module an old Node could crash on
import { pathToFileURL } from 'node:url';
import { buildApp } from './app.js';
import { printBootstrapToken } from './auth/bootstrap-token.js';
import { ConfigError, loadConfig } from './config.js';
import { describeDatabase } from './store/describe-database.js';

const SHUTDOWN_LIMIT_MS = 10_000;

export async function serve(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`plant-store: ${error.message}\n`);
    process.exit(1);
  }
  const app = await buildApp(config);
  app.log.info({ database: describeDatabase(config).text }, 'using the database');
  await printBootstrapToken(config, app.store);
  await app.listen({ port: config.port, host: config.host });
  // Its own port, opened once the API listens and closed when the app closes (plugins/metrics.ts).
  if (app.metrics) app.log.info({ url: await app.metrics.listen() }, 'serving metrics');

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    // unref: the timer must not keep a process alive that has otherwise finished.
    setTimeout(() => {
      app.log.error('requests did not finish within 10 seconds; exiting anyway');
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'close failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  serve().catch((error: unknown) => {
    process.stderr.write(`plant-store: could not start: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
