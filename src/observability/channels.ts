// What the service does, published on Node's diagnostics channels: the store, the commits, the
// limits. Metrics and traces subscribe; the code that publishes knows nothing of either. With no
// subscriber a publication costs one property check (`hasSubscribers`), so it stays on the hot path.
import { channel, tracingChannel } from 'node:diagnostics_channel';
import type { PlantStore } from '../store/plant-store.js';

export type StoreKind = 'sqlite' | 'postgres';

/** One call of a request's store handle (plugins/store.ts traces them). */
export interface StoreCallContext {
  store: StoreKind;
  operation: keyof PlantStore;
}

/** One transaction of SQLite's group commit: `batchSize` writes share it and its fsync. */
export interface CommitContext {
  store: 'sqlite';
  batchSize: number;
}

/** A request refused by authentication: no token, or one that is not valid. */
export interface AuthFailure {
  reason: 'missing' | 'invalid';
}

/** A request refused by a rate limit: its token's, or its address's limit on failed authentications. */
export interface RateLimited {
  limit: 'token' | 'auth-failures';
}

/** A shared rate-limit store (Redis) failed; the limit let the request through (fails open). */
export interface RateLimitStoreError {
  limit: 'token' | 'auth-failures';
  error: unknown;
}

export const storeCalls = tracingChannel<unknown, StoreCallContext>('plant-store:store-call');
export const commits = tracingChannel<unknown, CommitContext>('plant-store:commit');
export const authFailures = channel('plant-store:auth-failure');
export const rateLimited = channel('plant-store:rate-limited');
export const rateLimitStoreErrors = channel('plant-store:rate-limit-store-error');
