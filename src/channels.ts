// What the service does, published on Node's diagnostics channels for metrics and traces, which the publishers know
// nothing of. With no subscriber a publication costs one property check (`hasSubscribers`), so it stays on the hot path.
import type { AsyncResource } from 'node:async_hooks';
import { channel, tracingChannel } from 'node:diagnostics_channel';

export type StoreKind = 'sqlite' | 'postgres';

/** One call of a request's store handle (plugins/store.ts traces them). */
export interface StoreCallContext {
  store: StoreKind;
  /** The PlantStore method called. */
  operation: string;
}

/** A PostgreSQL statement's round trip, settled (store/postgres/postgres-store.ts): one may serve several requests. */
export interface QueryTime {
  statement: string;
  outcome: 'ok' | 'error';
  seconds: number;
}

/** One transaction of SQLite's group commit: `batchSize` writes share it and its sync (store/sqlite/engine.ts). */
export interface CommitContext {
  store: 'sqlite';
  batchSize: number;
  /**
   * Where each write of the batch was queued, in batch order (undefined while nobody listened): the commit runs later,
   * for several requests, so this is how traces reach each request's store-call span in AsyncLocalStorage.
   */
  queuedIn: Array<AsyncResource | undefined>;
}

/** A shared rate-limit store (Redis) failed; the limit let the request through (fails open). */
export interface RateLimitStoreError {
  limit: 'token' | 'auth-failures';
  error: unknown;
}

/** Each store call traced: its span is current while it runs (traces bind a store to `start`). */
export const storeCalls = tracingChannel<unknown, StoreCallContext>('plant-store:store-call');
/** Each PostgreSQL statement timed, one message as it settles. */
export const queryTimes = channel('plant-store:postgres-query-time');
export const commits = tracingChannel<unknown, CommitContext>('plant-store:commit');
/** `{ reason: 'missing' | 'invalid' }`: a request refused by authentication (metrics count by the message's field). */
export const authFailures = channel('plant-store:auth-failure');
/** `{ limit: 'token' | 'auth-failures' }`: a request refused by a rate limit. */
export const rateLimited = channel('plant-store:rate-limited');
export const rateLimitStoreErrors = channel('plant-store:rate-limit-store-error');

/** An answer of a deprecated operation, or to a request that used a deprecated parameter (contract/operation-routes.ts). */
export interface DeprecatedRequest {
  operation: string;
}
export const deprecatedRequests = channel('plant-store:deprecated-request');
