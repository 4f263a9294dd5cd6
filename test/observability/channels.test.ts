// The diagnostics channels metrics and traces listen on: what each publishes, on the real app and
// store, and that a request's handle is traced only while someone listens.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import t, { type Test } from 'tap';
import {
  authFailures,
  commits,
  rateLimited,
  storeCallTimes,
  storeCalls,
  type CommitContext,
  type StoreCallContext,
  type StoreCallTime,
} from '../../src/observability/channels.js';
import { TracedStore } from '../../src/observability/traced-store.js';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';

/** Every message of a plain channel while the test runs. */
function listen(t: Test, name: string): unknown[] {
  const seen: unknown[] = [];
  const onMessage = (message: unknown) => void seen.push(message);
  subscribe(name, onMessage);
  t.teardown(() => unsubscribe(name, onMessage));
  return seen;
}

t.test('store calls: start and settle per call, named by store and operation, only while subscribed', async (t) => {
  const app = await buildTestApp(t);
  const token = await tokenFor(app, 'alice');
  const events: Array<[string, StoreCallContext & { error?: unknown }]> = [];
  const handlers = {
    start: (context: StoreCallContext) => void events.push(['start', context]),
    end: () => undefined,
    asyncStart: () => undefined,
    asyncEnd: (context: StoreCallContext) => void events.push(['settled', context]),
    error: (context: StoreCallContext) => void events.push(['error', context]),
  };

  await inject(t, app, { url: '/plants', headers: bearer(token) });
  t.same(events, [], 'nobody listens: nothing is published');

  storeCalls.subscribe(handlers);
  t.teardown(() => storeCalls.unsubscribe(handlers));
  t.equal((await inject(t, app, { method: 'POST', url: '/plants', headers: bearer(token), payload: { id: 1, name: 'Fern' } })).status, 200);
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 200);
  const kind = app.store.kind;
  t.same(
    events.map(([event, context]) => `${event} ${context.store} ${context.operation}`),
    [
      `start ${kind} findToken`,
      `settled ${kind} findToken`,
      `start ${kind} addPlant`,
      `settled ${kind} addPlant`,
      `start ${kind} findToken`,
      `settled ${kind} findToken`,
      `start ${kind} listPlants`,
      `settled ${kind} listPlants`,
    ],
    'each call of the handle, in order',
  );
  t.ok(!(app.store.forRequest() instanceof TracedStore), 'the store itself hands out plain handles');
});

t.test('a failed store call is published as an error', async (t) => {
  const app = await buildTestApp(t);
  const token = await tokenFor(app, 'alice');
  const errors: unknown[] = [];
  const handlers = { error: (context: { error: unknown }) => void errors.push(context.error) };
  storeCalls.subscribe(handlers as never);
  t.teardown(() => storeCalls.unsubscribe(handlers as never));
  await app.store.close(); // the database goes away under the app
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 500);
  t.equal(errors.length, 1, 'the failed token lookup');
  t.type(errors[0], Error);
});

t.test('store call times: one message per call as it settles, with its outcome and time, only while subscribed', async (t) => {
  const app = await buildTestApp(t);
  const token = await tokenFor(app, 'alice');
  await inject(t, app, { url: '/plants', headers: bearer(token) });
  const times = listen(t, storeCallTimes.name as string) as StoreCallTime[];
  const before = performance.now();
  t.equal((await inject(t, app, { method: 'POST', url: '/plants', headers: bearer(token), payload: { id: 1, name: 'Fern' } })).status, 200);
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 200);
  const elapsed = (performance.now() - before) / 1000;
  const kind = app.store.kind;
  t.same(
    times.map(({ store, operation, outcome }) => `${store} ${operation} ${outcome}`),
    [`${kind} findToken ok`, `${kind} addPlant ok`, `${kind} findToken ok`, `${kind} listPlants ok`],
    'each call of the handle, in order',
  );
  for (const { seconds } of times) t.ok(seconds >= 0 && seconds <= elapsed, `a time within the requests' own (${seconds} s)`);

  await app.store.close(); // the database goes away under the app
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 500);
  t.same(
    times.slice(4).map(({ operation, outcome }) => `${operation} ${outcome}`),
    ['findToken error'],
    'the failed token lookup',
  );
});

t.test('traced and timed at once (traces and metrics both on): each call once on each channel', async (t) => {
  const app = await buildTestApp(t);
  const token = await tokenFor(app, 'alice');
  const times = listen(t, storeCallTimes.name as string) as StoreCallTime[];
  const traced: string[] = [];
  const handlers = { asyncEnd: (context: StoreCallContext) => void traced.push(context.operation) };
  storeCalls.subscribe(handlers as never);
  t.teardown(() => storeCalls.unsubscribe(handlers as never));
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 200);
  t.same(traced, ['findToken', 'listPlants']);
  t.same(
    times.map(({ operation, outcome }) => `${operation} ${outcome}`),
    ['findToken ok', 'listPlants ok'],
  );
});

t.test(
  'SQLite commits: one per batch, with its size',
  { skip: process.env.PLANT_STORE_TEST_STORE === 'postgres' && 'group commit is SQLite only' },
  async (t) => {
    const app = await buildTestApp(t);
    const token = await tokenFor(app, 'alice');
    const batches: number[] = [];
    const handlers = { end: (context: CommitContext) => void batches.push(context.batchSize) };
    commits.subscribe(handlers as never);
    t.teardown(() => commits.unsubscribe(handlers as never));
    const creates = [1, 2, 3].map((id) =>
      app.inject({ method: 'POST', url: '/plants', headers: bearer(token), payload: { id, name: `P${id}` } }),
    );
    t.same(
      (await Promise.all(creates)).map((response) => response.statusCode),
      [200, 200, 200],
    );
    t.same(batches, [3], 'three creates that came together share one commit');
  },
);

t.test('authentication failures and rate-limit rejections', async (t) => {
  const failures = listen(t, authFailures.name as string);
  const limited = listen(t, rateLimited.name as string);
  const app = await buildTestApp(t, { rateLimitPerMinute: 1, authFailuresPerMinute: 2 });
  const token = await tokenFor(app, 'alice');
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 200);
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 429);
  t.same(limited, [{ limit: 'token' }], "the token's limit");
  t.equal((await inject(t, app, { url: '/plants' })).status, 401);
  t.equal((await inject(t, app, { url: '/plants', headers: bearer('pst_wrong') })).status, 401);
  t.same(failures, [{ reason: 'missing' }, { reason: 'invalid' }]);
  t.equal((await inject(t, app, { url: '/plants', headers: bearer('pst_wrong') })).status, 429);
  t.same(limited, [{ limit: 'token' }, { limit: 'auth-failures' }], "the address's limit on failed authentications");
});
