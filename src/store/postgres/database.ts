// Opens a PostgreSQL pool (int8 as bigint, bounded waits, durable commits) and brings its schema up to date.
import pg from 'pg';
import { logMigration, refuseNewer, type AppliedMigration } from '../migration-log.js';
import type { StoreLog } from '../plant-store.js';
import { migrations } from './migrations.js';

export interface PoolSettings {
  url: string;
  poolSize: number;
  /** Longest wait for a connection and for each statement. */
  timeoutMs: number;
}

/** Every bigint column arrives as exact BigInt: pg's default is a string, and a JavaScript number would round ids beyond 2^53. */
export const types = new pg.TypeOverrides();
types.setTypeParser(pg.types.builtins.INT8, BigInt);

/** Migrations wait for each other, so their statements may take longer than a request's. */
const MIGRATION_TIMEOUT_MS = 300_000;
/** One advisory lock key for "Plant Store migrations": instances starting together apply them one at a time. */
const MIGRATION_LOCK = '7089431208473260563';

/**
 * Adds `-c name=value` to the connection's startup options. Into the URL, because options given
 * in the URL would replace options given beside it.
 */
function withStartupOption(url: string, option: string): string {
  const at = url.indexOf('?');
  const params = new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
  params.set('options', [params.get('options'), option].filter(Boolean).join(' '));
  return `${at === -1 ? url : url.slice(0, at)}?${params.toString()}`;
}

/**
 * Opens the pool. `durable`: what migrate() reported; when the server's synchronous_commit is off,
 * this pool's sessions turn it on, so a write is acknowledged only once it is on disk (other
 * values, such as remote_apply, are at least as strong and are kept).
 */
export function openPool({ url, poolSize, timeoutMs }: PoolSettings, durable = true): pg.Pool {
  const pool = new pg.Pool({
    connectionString: durable ? url : withStartupOption(url, '-c synchronous_commit=on'),
    max: poolSize,
    types,
    // No request waits on the database longer than this: for a free connection (or a new one),
    // for the server to answer (client side, also when the network is gone), or for a statement to run (server side).
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    statement_timeout: timeoutMs,
    idle_in_transaction_session_timeout: timeoutMs,
    keepAlive: true,
    idleTimeoutMillis: 30_000,
    application_name: 'plant-store',
  });
  // An idle connection that dies (the server restarted, the network dropped) is only reported
  // here; the pool discards it and the next query opens a new one. Without a listener it would crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/** A connection of its own, outside the pool, not connected yet; `config` adds to the URL, the int8 parser and the connect timeout. */
export function newClient({ url, timeoutMs }: Omit<PoolSettings, 'poolSize'>, config: pg.ClientConfig): pg.Client {
  const client = new pg.Client({ connectionString: url, types, connectionTimeoutMillis: timeoutMs, ...config });
  client.on('error', () => undefined); // a lost connection also fails the query in progress, which reports it
  return client;
}

/**
 * Applies the pending migrations in one transaction, under an advisory lock shared by every
 * instance. Its own connection: migrations may wait for another instance's, longer than a request may.
 * Resolves whether the server's sessions commit durably (synchronous_commit is not off). Each migration
 * applied is logged (from, to, milliseconds) once committed.
 */
export async function migrate(settings: Omit<PoolSettings, 'poolSize'>, target = migrations.length, log?: StoreLog): Promise<boolean> {
  const client = newClient(settings, {
    query_timeout: MIGRATION_TIMEOUT_MS,
    statement_timeout: MIGRATION_TIMEOUT_MS,
    application_name: 'plant-store migrate',
  });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
                          version INTEGER PRIMARY KEY,
                          applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                        )`);
    const { rows } = await client.query<{ version: number }>('SELECT coalesce(max(version), 0) AS version FROM schema_migrations');
    const current = rows[0]!.version;
    refuseNewer(current, migrations.length);
    const applied: AppliedMigration[] = [];
    for (let version = current; version < target; version++) {
      const started = performance.now();
      await client.query(migrations[version]!);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version + 1]);
      applied.push({ from: version, to: version + 1, ms: Math.round((performance.now() - started) * 100) / 100 });
    }
    await client.query('COMMIT');
    for (const step of applied) logMigration(log, 'PostgreSQL', step);
    const setting = await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    return setting.rows[0]!.synchronous_commit !== 'off';
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The schema version the database is at (0: no Plant Store schema yet), read without changing anything. */
export async function schemaVersion(settings: Omit<PoolSettings, 'poolSize'>): Promise<number> {
  const client = newClient(settings, { query_timeout: settings.timeoutMs });
  await client.connect();
  try {
    const table = await client.query<{ found: string | null }>("SELECT to_regclass('schema_migrations')::text AS found");
    if (table.rows[0]!.found === null) return 0;
    const { rows } = await client.query<{ version: number }>('SELECT coalesce(max(version), 0) AS version FROM schema_migrations');
    return rows[0]!.version;
  } finally {
    await client.end().catch(() => undefined);
  }
}
