// The database's share of the time: SQLite's group commits (with their syncs), PostgreSQL's statements and pool.
// A SQLite read runs on the event loop, so its time is the process's (event-loop delay, CPU), not the database's.
import type { TracingChannelSubscribers } from 'node:diagnostics_channel';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type pg from 'pg';
import type { Store } from '../store/plant-store.js';
import { commits, queryTimes, type CommitContext, type QueryTime } from '../channels.js';
import { LATENCY_BUCKETS } from './request-metrics.js';

/** Subscribes; returns what unsubscribes. */
export function measureStore(registry: Registry, store: Store): () => void {
  if (store.kind === 'sqlite') return measureCommits(registry);
  // By kind, not instanceof: a value import of the PostgreSQL store would load pg into every SQLite server.
  const stops = [timeQueries(registry), measurePool(registry, (store as Store & { pool: pg.Pool }).pool)];
  return () => {
    for (const stop of stops) stop();
  };
}

/**
 * Each statement's round trip, by statement (the names of postgres-store.ts) and outcome: one statement may
 * serve several requests, so this costs less than a request's own time and says what the database takes.
 */
function timeQueries(registry: Registry): () => void {
  const duration = new Histogram({
    name: 'plant_store_postgres_query_duration_seconds',
    help: 'Time of each PostgreSQL statement, from sending it to its result (pool wait included), by statement and outcome ("ok" or "error").',
    labelNames: ['statement', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const observe = (message: unknown) => {
    const { statement, outcome, seconds } = message as QueryTime;
    duration.observe({ statement, outcome }, seconds);
  };
  queryTimes.subscribe(observe);
  return () => {
    queryTimes.unsubscribe(observe);
  };
}

function measureCommits(registry: Registry): () => void {
  const registers = [registry];
  // Without labels, so each shows 0 before the first commit.
  const batchSize = new Histogram({
    name: 'plant_store_sqlite_commit_batch_size',
    help: 'Writes that shared one SQLite group commit (and its sync).',
    labelNames: [],
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000],
    registers,
  });
  const duration = new Histogram({
    name: 'plant_store_sqlite_commit_duration_seconds',
    help: "Time of each SQLite group commit: the batch's writes and COMMIT (on the event loop), then the sync of the WAL (off it).",
    labelNames: [],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers,
  });
  const failed = new Counter({
    name: 'plant_store_sqlite_commit_failures_total',
    help: 'SQLite group commits that failed: none of their writes was kept, each answered with an error.',
    registers,
  });
  failed.inc(0);
  const started = new WeakMap<CommitContext, number>();
  const settled = (context: CommitContext & { error?: unknown }) => {
    const now = performance.now();
    // Every commit publishes `start` first; were it missed (a subscription made mid-commit), 0.
    duration.observe((now - (started.get(context) ?? now)) / 1000);
    if ('error' in context) failed.inc();
  };
  const nothing = () => undefined;
  const handlers: TracingChannelSubscribers<CommitContext & { error?: unknown }> = {
    start: (context) => void started.set(context, performance.now()),
    // `end` comes when COMMIT has returned, before its sync; if COMMIT threw, it is the last event.
    end: (context) => {
      batchSize.observe(context.batchSize);
      if ('error' in context) settled(context);
    },
    asyncStart: nothing,
    asyncEnd: settled,
    error: nothing,
  };
  commits.subscribe(handlers);
  return () => {
    commits.unsubscribe(handlers);
  };
}

/** Gauges read from the pool at scrape time: nothing is done per request. */
function measurePool(registry: Registry, pool: pg.Pool): () => void {
  const registers = [registry];
  new Gauge({
    name: 'plant_store_postgres_pool_connections',
    help: 'Open PostgreSQL connections of this instance: "in_use" (running a statement) or "idle".',
    labelNames: ['state'],
    registers,
    collect() {
      this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
      this.set({ state: 'idle' }, pool.idleCount);
    },
  });
  new Gauge({
    name: 'plant_store_postgres_pool_max',
    help: 'Most connections the pool opens (DATABASE_POOL_SIZE).',
    registers,
    collect() {
      this.set(pool.options.max);
    },
  });
  new Gauge({
    name: 'plant_store_postgres_pool_waiting',
    help: 'Queries waiting for a free PostgreSQL connection (the pool is at its size).',
    registers,
    collect() {
      this.set(pool.waitingCount);
    },
  });
  const errors = new Counter({
    name: 'plant_store_postgres_pool_errors_total',
    help: 'Errors of idle PostgreSQL connections (the server closed or lost one); the pool opens a new one on next use.',
    registers,
  });
  errors.inc(0);
  const onError = () => errors.inc();
  pool.on('error', onError);
  return () => void pool.off('error', onError);
}
