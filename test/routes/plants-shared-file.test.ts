// Two services on one database (as two processes would be): each answers with what the
// other committed, although first pages are served from a cache.
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { bearer, inject, testConfig, tokenFor } from '../helpers/app.js';
import { lastNotRefused } from '../helpers/until.js';

t.test("a page one service has cached shows the other service's writes at once", async (t) => {
  const config = await testConfig(t);
  const first = await buildApp(config);
  const second = await buildApp(config);
  t.teardown(async () => {
    await first.close();
    await second.close();
  });
  const alice = { ...bearer(await tokenFor(first, 'alice')), 'content-type': 'application/json' };
  const list = async () => (await inject(t, first, { url: '/plants?limit=20', headers: alice })).json();

  t.same(await list(), []);
  t.same(await list(), [], 'asked twice: the second answer comes from the cache');
  t.equal((await inject(t, second, { method: 'POST', url: '/plants', headers: alice, payload: '{"id":1,"name":"Fern"}' })).status, 200);
  t.same(await list(), [{ name: 'Fern' }], 'the other service created a plant');
  t.equal((await inject(t, second, { method: 'DELETE', url: '/plants/1', headers: alice })).status, 204);
  t.same(await list(), [], 'the other service deleted it');
  t.equal((await inject(t, first, { method: 'POST', url: '/plants', headers: alice, payload: '{"id":2,"name":"Ivy"}' })).status, 200);
  t.same(await list(), [{ name: 'Ivy' }], 'its own write');
  const [token] = await second.store.listTokens();
  await second.store.revokeToken(token!.id);
  const refused = async () => (await inject(t, first, { url: '/plants?limit=20', headers: alice })).status === 401;
  if (first.store.kind === 'sqlite') t.ok(await refused(), 'a token revoked elsewhere fails on its next request');
  else {
    // PostgreSQL: each instance caches a token's owner for under a second (docs/deploy.md), so within 1 s of the commit.
    const last = await lastNotRefused(refused, 10_000, 'a token revoked elsewhere refused');
    t.ok(last < 1000, `a token revoked elsewhere fails within 1 s (accepted last by a request sent ${last.toFixed(1)} ms after)`);
  }
});
