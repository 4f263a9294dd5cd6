// Benchmark data on PostgreSQL: a throwaway server (test/helpers/postgres-cluster.ts), one database
// filled like the SQLite data set, and a copy of it per server under test, each with its own token.
import pg from 'pg';
import { createToken } from '../src/auth/tokens.js';
import { migrate } from '../src/store/postgres/database.js';
import { PostgresStore } from '../src/store/postgres/postgres-store.js';
import { postgresBinDir, startCluster, type PostgresCluster } from '../test/helpers/postgres-cluster.js';
import { BENCH_USER } from './bench-user.js';
import { withChildren } from './proc-stats.js';
import { PLANTS_PER_USER } from './plant-content.js';
import type { Seed } from './load/seeds.js';

const TEMPLATE = 'bench_seed';
const TIMEOUT_MS = 60_000;

export interface PostgresData {
  cluster: PostgresCluster;
  rows: number;
  /** A fresh database copied from the filled one, and tokens in it for the bench user and each of `users`. */
  copy(name: string, users?: readonly string[]): Promise<{ url: string; tokens: Map<string, string> }>;
  /** The server's processes now: the postmaster and its backends. */
  pids(): number[];
  destroy(): void;
}

/** Why PostgreSQL scenarios cannot run here, or undefined when they can. */
export function postgresUnavailable(): string | undefined {
  return postgresBinDir() === undefined
    ? 'PostgreSQL server binaries (initdb, pg_ctl) not found; install postgresql-15 or set PG_BIN'
    : undefined;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The same users, ids, names and tags as the SQLite data (bench/data.ts, bench/plant-content.ts),
 * built by the server in one statement: 100 users of 10,000 plants, or the bench user alone.
 */
async function fill(url: string, rows: number): Promise<void> {
  await migrate({ url, timeoutMs: TIMEOUT_MS });
  await withClient(url, async (client) => {
    await client.query('SET synchronous_commit = off'); // data generation, not an acknowledged write
    const users = rows / PLANTS_PER_USER;
    const owners =
      users === 1
        ? `SELECT '${BENCH_USER}'::text AS owner`
        : `SELECT 'user-' || lpad(u::text, 4, '0') AS owner FROM generate_series(0, ${users - 1}) AS u`;
    await client.query(
      `INSERT INTO plants (owner, id, name, tag)
       SELECT owner, g, 'Plant ' || g || ' of ' || owner,
              CASE WHEN g % 5 = 0 THEN NULL ELSE (ARRAY['tropical', 'succulent', 'fern', 'herb'])[g % 4 + 1] END
         FROM (${owners}) AS users, generate_series(1, ${PLANTS_PER_USER}) AS g
        ORDER BY owner, g`,
    );
    // Statistics and the visibility map now, and dirty pages on disk, so neither autovacuum nor a
    // checkpoint lands in the middle of a measurement.
    await client.query('VACUUM (ANALYZE) plants');
    await client.query('CHECKPOINT');
  });
}

/** Starts a throwaway PostgreSQL server and fills a database with `rows` plants (a multiple of 10,000). */
export async function postgresData(rows: number): Promise<PostgresData> {
  // Durable like production: fsync and synchronous_commit stay on. Room for every pool.
  const cluster = await startCluster({ settings: { shared_buffers: "'512MB'", max_connections: '200' } });
  try {
    await withClient(cluster.url, (client) => client.query(`CREATE DATABASE ${TEMPLATE}`));
    await fill(cluster.urlFor(TEMPLATE), rows);
  } catch (error) {
    cluster.destroy();
    throw error;
  }
  return {
    cluster,
    rows,
    async copy(name, users = []) {
      const database = `bench_${name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;
      await withClient(cluster.url, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${database}`);
        await client.query(`CREATE DATABASE ${database} TEMPLATE ${TEMPLATE}`);
      });
      const url = cluster.urlFor(database);
      const store = await PostgresStore.open({ url, poolSize: 1, timeoutMs: TIMEOUT_MS });
      try {
        const tokens = new Map<string, string>();
        for (const owner of new Set([BENCH_USER, ...users])) tokens.set(owner, (await createToken(store, owner)).token);
        return { url, tokens };
      } finally {
        await store.close();
      }
    },
    pids: () => {
      const pid = cluster.pid();
      return pid === undefined ? [] : withChildren(pid);
    },
    destroy: () => {
      cluster.destroy();
    },
  };
}

/** Inserts each seed's plants (owner, firstId..firstId+count-1), for deletes to find. */
export async function seedPostgresPlants(url: string, seeds: readonly Seed[]): Promise<void> {
  await withClient(url, (client) =>
    client.query(
      `INSERT INTO plants (owner, id, name)
       SELECT s.owner, g, 'To delete ' || g
         FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS s(owner, first_id, count),
              generate_series(s.first_id, s.first_id + s.count - 1) AS g
       ON CONFLICT DO NOTHING`,
      [seeds.map((seed) => seed.owner), seeds.map((seed) => String(seed.firstId)), seeds.map((seed) => String(seed.count))],
    ),
  );
}
