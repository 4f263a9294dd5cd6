// pg against postgres (porsager/postgres) on this service's two hot queries, the first page and a create,
// in one process on a throwaway server: client CPU per query (what Plant Store would spend in the driver),
// PostgreSQL's CPU per query and queries per second, several rounds, the drivers alternating.
// Not part of `npm run bench`: postgres is not a dependency. Install it apart and name it:
//   npm install --prefix /tmp/drivers postgres@3
//   POSTGRES_JS=/tmp/drivers/node_modules/postgres/src/index.js npx tsx bench/driver-comparison.ts [rounds] [seconds]
import { performance } from 'node:perf_hooks';
import { toPage, type PlantRow } from '../src/pagination/page.js';
import pg from 'pg';
import { migrate, types } from '../src/store/postgres/database.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { startCluster } from '../test/helpers/postgres-cluster.js';
import { cpuSeconds, withChildren } from './proc-stats.js';
import { median } from './stats.js';

/** What this script uses of postgres.js: a tagged template whose queries resolve rows, or rows as arrays with values(). */
interface Sql {
  (strings: TemplateStringsArray, ...values: unknown[]): Promise<Array<Record<string, unknown>>> & { values(): Promise<PlantRow[]> };
  end(): Promise<void>;
}
type PostgresJs = (url: string, options: Record<string, unknown>) => Sql;

const rounds = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 4);
const CONCURRENCY = 50;
const POOL = 10;
const OWNER = 'user-0050';
const LIMIT = 20;

const location = process.env.POSTGRES_JS;
if (location === undefined) throw new Error('POSTGRES_JS must name postgres.js (its src/index.js), installed apart');
const postgres = ((await import(location)) as { default: PostgresJs & { BigInt: unknown } }).default;

const cluster = await startCluster();
const url = cluster.urlFor('postgres');
await migrate({ url, timeoutMs: 10_000 });
const store = await PostgresStore.open({ url, poolSize: POOL, timeoutMs: 120_000 }); // long enough for the fill below
await store.pool.query(
  `INSERT INTO plants (owner, id, name, tag) SELECT 'user-' || lpad((n % 100)::text, 4, '0'), n, 'Plant ' || n, 'tag' FROM generate_series(1, 1000000) AS n`,
);
await store.pool.query('VACUUM ANALYZE plants');
const sql = postgres(url, {
  max: POOL,
  prepare: true,
  types: { bigint: postgres.BigInt },
  connection: { application_name: 'plant-store drivers' },
});

// pg's pipeline mode (8.23), on clients of its own: queries written without waiting for the answers before them,
// as postgres.js does, dealt out in turn. Not a pool: the store would need its own limits and outage handling for it.
const pipelined = Array.from(
  { length: POOL },
  () =>
    new pg.Client({
      connectionString: url,
      pipeline: true,
      types,
    }),
);
await Promise.all(pipelined.map((client) => client.connect()));
let turn = 0;
const nextClient = () => pipelined[turn++ % POOL]!;
const FIRST_PAGE = 'SELECT id, name, tag FROM plants WHERE owner = $1 ORDER BY id LIMIT $2';
const ADD_PLANT = `INSERT INTO plants (owner, id, name, tag) VALUES ($1, $2, $3, $4)
  ON CONFLICT (owner, id) DO UPDATE SET name = EXCLUDED.name
    WHERE plants.name = EXCLUDED.name AND plants.tag IS NOT DISTINCT FROM EXCLUDED.tag
  RETURNING CASE WHEN xmax = 0 THEN 'created' ELSE 'unchanged' END AS result`;

let nextId = 2_000_000_000n;
type Work = () => Promise<unknown>;
const work: Record<string, Work> = {
  'pg get': async () => store.listPlants(OWNER, undefined, LIMIT),
  'postgres get': async () =>
    toPage(await sql`SELECT id, name, tag FROM plants WHERE owner = ${OWNER} ORDER BY id LIMIT ${LIMIT + 1}`.values(), LIMIT),
  'pg-pipelined get': async () =>
    toPage(
      (await nextClient().query<PlantRow>({ name: 'first-page', text: FIRST_PAGE, values: [OWNER, LIMIT + 1], rowMode: 'array' })).rows,
      LIMIT,
    ),
  'pg-pipelined create': async () => {
    const values = [OWNER, String(nextId++), 'New plant', 'new'];
    const { rows } = await nextClient().query<{ result: string }>({ name: 'add-plant', text: ADD_PLANT, values });
    return rows[0]?.result ?? 'conflict';
  },
  'pg create': async () => store.addPlant(OWNER, { id: nextId++, name: 'New plant', tag: 'new' }),
  'postgres create': async () => {
    const id = String(nextId++);
    const rows = await sql`INSERT INTO plants (owner, id, name, tag) VALUES (${OWNER}, ${id}::int8, ${'New plant'}, ${'new'})
      ON CONFLICT (owner, id) DO UPDATE SET name = EXCLUDED.name
        WHERE plants.name = EXCLUDED.name AND plants.tag IS NOT DISTINCT FROM EXCLUDED.tag
      RETURNING CASE WHEN xmax = 0 THEN 'created' ELSE 'unchanged' END AS result`;
    return rows[0]?.result ?? 'conflict';
  },
};

const serverCpu = () => withChildren(cluster.pid()!).reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);

async function measure(run: Work): Promise<{ perSecond: number; clientMicros: number; serverMicros: number }> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  const cpu = process.cpuUsage();
  const server = serverCpu();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        await run();
        done++;
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    perSecond: done / wall,
    clientMicros: (used.user + used.system) / done,
    serverMicros: ((serverCpu() - server) * 1e6) / done,
  };
}

const results = new Map<string, Array<Awaited<ReturnType<typeof measure>>>>();
try {
  for (const name of Object.keys(work)) await measure(work[name]!); // warm-up: statements prepared, JIT warm
  for (let round = 1; round <= rounds; round++) {
    // Alternate which driver goes first, so neither always runs after the other's writes.
    const order = round % 2 === 1 ? ['pg', 'postgres', 'pg-pipelined'] : ['pg-pipelined', 'postgres', 'pg'];
    for (const query of ['get', 'create']) {
      for (const driver of order) {
        const name = `${driver} ${query}`;
        const result = await measure(work[name]!);
        results.set(name, [...(results.get(name) ?? []), result]);
        process.stdout.write(
          `round ${round} ${name.padEnd(20)} ${Math.round(result.perSecond).toString().padStart(6)} q/s  client ${result.clientMicros.toFixed(1)} µs/q  PostgreSQL ${result.serverMicros.toFixed(1)} µs/q\n`,
        );
      }
    }
  }
  process.stdout.write(`\nmedians over ${rounds} rounds of ${seconds} s, ${CONCURRENCY} concurrent, pool ${POOL}:\n`);
  for (const [name, list] of results) {
    process.stdout.write(
      `${name.padEnd(20)} ${Math.round(median(list.map((r) => r.perSecond)))} q/s  client ${median(list.map((r) => r.clientMicros)).toFixed(1)} µs/q  PostgreSQL ${median(list.map((r) => r.serverMicros)).toFixed(1)} µs/q\n`,
    );
  }
} finally {
  await sql.end();
  await Promise.all(pipelined.map((client) => client.end()));
  await store.close();
  cluster.destroy();
}
