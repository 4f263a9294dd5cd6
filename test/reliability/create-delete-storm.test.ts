// 20 workers creating and deleting the same plant, over 20,000 requests, against one server and
// against two on one database: only 200, 204 and 404, never a 500 from a write that raced another.
// PostgreSQL only: it is where a create could miss a racing write (SQLite serializes its writers;
// races.test.ts covers its interleavings), and the storm is the heaviest load of the suite.
import t from 'tap';
import { load, type Load } from '../helpers/load.js';
import { runCli, startServer } from '../helpers/process.js';
import { freshStore, onlyOn } from '../helpers/store-under-test.js';

const WORKERS = 20;
const REQUESTS = 20_000;

async function storm(clients: Load[], token: string) {
  const statuses = new Map<string, number>();
  let sent = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, worker) => {
      const client = clients[worker % clients.length]!;
      for (let step = worker; sent < REQUESTS; step++) {
        sent++;
        const outcome =
          step % 2 === 0
            ? await client.send('POST', '/plants', token, '{"id":77,"name":"storm"}')
            : await client.send('DELETE', '/plants/77', token);
        const key = outcome.status === undefined ? `error ${outcome.error}` : `${step % 2 === 0 ? 'POST' : 'DELETE'} ${outcome.status}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
    }),
  );
  return { statuses: Object.fromEntries([...statuses].sort()), seconds: (performance.now() - started) / 1000 };
}

for (const instances of [1, 2]) {
  t.test(
    `same-id create/delete storm, ${WORKERS} workers, ${instances} instance(s): only 200, 204 and 404`,
    onlyOn('postgres'),
    async (t) => {
      const settings = await freshStore(t);
      const env = { ...settings.env, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' };
      const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
      const servers = [];
      for (let i = 0; i < instances; i++) servers.push(await startServer(t, env));
      const clients = servers.map((server) => load(server.url, WORKERS));
      t.teardown(() => clients.forEach((client) => client.close()));

      const { statuses, seconds } = await storm(clients, token);
      const total = Object.values(statuses).reduce((a, b) => a + b, 0);
      t.comment(`${total} requests in ${seconds.toFixed(1)} s: ${JSON.stringify(statuses)}`);
      t.ok(total >= REQUESTS, `${total} requests`);
      t.same(
        Object.keys(statuses).filter((key) => !['POST 200', 'DELETE 204', 'DELETE 404'].includes(key)),
        [],
        'no other answer',
      );
      t.ok((statuses['DELETE 204'] ?? 0) > 100, 'the plant was really created and deleted many times');
    },
  );
}
