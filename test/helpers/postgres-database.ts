// Fresh PostgreSQL databases for tests: on PLANT_STORE_TEST_DATABASE_URL's server when set, else on a
// throwaway server this process starts (once) and removes when it exits.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Test } from 'tap';
import { startCluster } from './postgres-cluster.js';

let server: Promise<string> | undefined;

/** A URL on a server where the tests may create and drop databases. */
export function testServerUrl(): Promise<string> {
  server ??= process.env.PLANT_STORE_TEST_DATABASE_URL
    ? Promise.resolve(process.env.PLANT_STORE_TEST_DATABASE_URL)
    : startCluster().then((cluster) => cluster.url);
  return server;
}

/** The same server and credentials, another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.href;
}

export async function adminQuery(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

let created = 0;

/** A new, empty database, dropped when the test ends (even with connections still open). */
export async function freshDatabase(t: Test): Promise<string> {
  const admin = await testServerUrl();
  const name = `plant_store_test_${process.pid}_${created++}_${randomBytes(3).toString('hex')}`;
  await adminQuery(admin, `CREATE DATABASE ${name}`);
  t.teardown(() => adminQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  return withDatabase(admin, name);
}
