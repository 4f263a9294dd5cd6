// The PostgreSQL leg of the tests: one throwaway server for the whole run (or the server of
// PLANT_STORE_TEST_DATABASE_URL), tap with PLANT_STORE_TEST_STORE=postgres over the store-specific
// files (test/helpers/store-specific.ts; or the files given as arguments), then the server is removed.
// Where PostgreSQL is not installed it skips with one line; with CI=true that is a failure instead.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { storeSpecificTests } from '../test/helpers/store-specific.js';
import { postgresBinDir, startCluster, type PostgresCluster } from '../test/helpers/postgres-cluster.js';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

let url = process.env.PLANT_STORE_TEST_DATABASE_URL || undefined;
let cluster: PostgresCluster | undefined;
if (url === undefined) {
  if (postgresBinDir() === undefined) {
    const reason =
      'no PostgreSQL server binaries (initdb, pg_ctl) found; install postgresql-15, set PG_BIN, or set PLANT_STORE_TEST_DATABASE_URL';
    if (process.env.CI === 'true') {
      process.stderr.write(`PostgreSQL leg: CI=true requires it, but ${reason}\n`);
      process.exit(1);
    }
    process.stdout.write(`PostgreSQL leg skipped: ${reason}\n`);
    process.exit(0);
  }
  cluster = await startCluster();
  url = cluster.url;
  process.stdout.write(`PostgreSQL leg: throwaway server on 127.0.0.1:${cluster.port} (${cluster.dir})\n`);
}

const files = process.argv.slice(2);
const tap = spawn(join(projectRoot, 'node_modules', '.bin', 'tap'), files.length > 0 ? files : storeSpecificTests, {
  cwd: projectRoot,
  stdio: 'inherit',
  env: { ...process.env, PLANT_STORE_TEST_STORE: 'postgres', PLANT_STORE_TEST_DATABASE_URL: url },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => tap.kill(signal));
tap.on('close', (code, signal) => {
  cluster?.destroy();
  process.exit(code ?? (signal ? 1 : 0));
});
