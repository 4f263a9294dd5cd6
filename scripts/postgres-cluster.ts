// `npx tsx scripts/postgres-cluster.ts`: a throwaway PostgreSQL server (test/helpers/postgres-cluster.ts) for trying things by hand; prints its URL, removed on Ctrl-C.
import { pathToFileURL } from 'node:url';
import { startCluster } from '../test/helpers/postgres-cluster.js';

// .ci/run imports this file to ask whether PostgreSQL is installed.
export { postgresBinDir } from '../test/helpers/postgres-cluster.js';

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const cluster = await startCluster();
  process.stdout.write(`${cluster.url}\n`);
  const stop = () => {
    cluster.destroy();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  setInterval(() => undefined, 1 << 30);
}
