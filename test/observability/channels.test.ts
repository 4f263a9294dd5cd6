// The diagnostics channels metrics and traces listen on: what each publishes, on the real app and
// store, and that a request's handle is traced only while someone listens.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import t, { type Test } from 'tap';
import {
  authFailures,
  commits,
  queryTimes,
  rateLimited,
  storeCalls,
  type CommitContext,
  type QueryTime,
  type StoreCallContext,
} from '../../src/channels.js';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';
import { onlyOn } from '../helpers/store-under-test.js';

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
  const published = events.length;
  await app.store.forRequest().listPlants('alice', undefined, 1);
  t.equal(events.length, published, 'the store itself hands out plain handles: their calls are not published');
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

t.test(
  'PostgreSQL statements: one message per statement as it settles, with its outcome and time, only while subscribed',
  onlyOn('postgres'), // a SQLite read runs on the event loop: its time is the process's
  async (t) => {
    const app = await buildTestApp(t);
    const token = await tokenFor(app, 'alice');
    await inject(t, app, { url: '/plants', headers: bearer(token) });
    t.notOk(queryTimes.hasSubscribers, 'the request above ran with nobody subscribed (metrics off)');
    const times = listen(t, queryTimes.name as string) as QueryTime[];
    const before = performance.now();
    t.equal(
      (await inject(t, app, { method: 'POST', url: '/plants', headers: bearer(token), payload: { id: 1, name: 'Fern' } })).status,
      200,
    );
    t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 200);
    const elapsed = (performance.now() - before) / 1000;
    // The token's lookups (cached after the first) and its last-use writes (off the request path) come and go.
    const plants = times.filter(({ statement }) => statement !== 'findToken' && statement !== 'noteUses');
    t.same(
      plants.map(({ statement, outcome }) => `${statement} ${outcome}`),
      ['addPlants ok', 'firstPage ok'],
      'one statement a request here, by its name',
    );
    for (const { seconds } of times) t.ok(seconds >= 0 && seconds <= elapsed, `a time within the requests' own (${seconds} s)`);

    const settled = times.length;
    await app.store.close(); // the database goes away under the app
    t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 500);
    const failed = times
      .slice(settled)
      .filter(({ statement }) => statement !== 'noteUses') // the close writes the last uses first
      .map(({ statement, outcome }) => `${statement} ${outcome}`);
    t.equal(failed.length, 1, `one statement after the close: ${failed.join(', ')}`);
    t.match(failed[0], /^(findToken|firstPage) error$/, 'the failed one, as an error');
  },
);

t.test(
  'SQLite commits: one per batch, with its size',
  onlyOn('sqlite'), // group commit is SQLite's
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
