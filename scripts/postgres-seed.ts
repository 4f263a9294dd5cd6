// Fills a PostgreSQL database with many plants at once (generate_series, one statement), for benchmarks.
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { migrate } from '../src/store/postgres/database.js';

export interface SeedOptions {
  /** The user who owns the plants; make their token with `plant-store token create <owner>`. */
  owner: string;
  /** Plants with ids 1..count, named `plant <id>`, every other one tagged `green`. */
  count: number;
}

/** Brings the schema up to date, inserts the plants, and leaves fresh planner statistics and a checkpoint behind. */
export async function seedPlants(url: string, { owner, count }: SeedOptions): Promise<void> {
  await migrate({ url, timeoutMs: 10_000 });
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    // Seeding is not an acknowledged write: no need to wait for the disk per row batch.
    await client.query('SET synchronous_commit = off');
    await client.query(
      `INSERT INTO plants (owner, id, name, tag)
       SELECT $1, g, 'plant ' || g, CASE WHEN g % 2 = 0 THEN 'green' END
         FROM generate_series(1, $2::bigint) AS g
       ON CONFLICT (owner, id) DO NOTHING`,
      [owner, String(count)],
    );
    // Statistics and the visibility map now, and dirty pages written, so neither autovacuum nor a
    // checkpoint lands in the middle of a measurement.
    await client.query('VACUUM (ANALYZE) plants');
    await client.query('CHECKPOINT').catch(() => undefined); // needs superuser (or pg_checkpoint); optional
  } finally {
    await client.end();
  }
}

// `tsx scripts/postgres-seed.ts <database url> <owner> <count>`
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [url, owner, count] = process.argv.slice(2);
  if (!url || !owner || !/^\d+$/.test(count ?? '')) {
    process.stderr.write('usage: tsx scripts/postgres-seed.ts <postgres:// url> <owner> <count>\n');
    process.exit(2);
  }
  const started = Date.now();
  await seedPlants(url, { owner, count: Number(count) });
  process.stderr.write(`seeded ${count} plants for ${owner} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
