// Sends the hostile-input corpus: each request gets its documented 4xx in the Error shape,
// and afterwards the store holds exactly what it held before. (The raw-socket cases, oversized headers, broken
// HTTP and request smuggling, are rows of the edge's table: test/http/edge-cases.ts.)
import t from 'tap';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';
import { corpus } from './corpus.js';

async function snapshot(app: Awaited<ReturnType<typeof buildTestApp>>) {
  const users = ['alice', 'bob'];
  return {
    plants: await Promise.all(users.map((user) => app.store.forRequest().listPlants(user, undefined, 1000))),
    // Without the last use: the corpus authenticates as alice, and recording that is no change it made.
    tokens: (await app.store.listTokens()).map(({ lastUsedAt: _used, ...token }) => token),
  };
}

t.test(`the hostile-input corpus (${corpus.length} requests)`, async (t) => {
  t.ok(corpus.length >= 100, 'at least 100 cases');
  const app = await buildTestApp(t, { rateLimitPerMinute: 0 });
  const alice = bearer(await tokenFor(app, 'alice'));
  await tokenFor(app, 'bob');
  await app.store.forRequest().addPlant('alice', { id: 1n, name: 'Fern' });
  await app.store.forRequest().addPlant('alice', { id: 9223372036854775807n, name: 'Max', tag: 'edge' });
  await app.store.forRequest().addPlant('bob', { id: 1n, name: 'Bob fern' });
  const before = await snapshot(app);

  for (const hostile of corpus) {
    const headers: Record<string, string> = { ...alice };
    if (hostile.contentType !== null) headers['content-type'] = hostile.contentType ?? 'application/json';
    const reply = await inject(t, app, { method: hostile.method ?? 'POST', url: hostile.url ?? '/plants', headers, payload: hostile.body });
    t.equal(reply.status, hostile.status, `${hostile.name}: ${reply.body.slice(0, 120)}`);
    if (hostile.message) t.match(reply.json().message, hostile.message, `${hostile.name}: message`);
  }
  t.same(await snapshot(app), before, 'the store is unchanged');
});

t.test('SQL metacharacters and odd but valid text are stored as data', async (t) => {
  const app = await buildTestApp(t);
  const auth = { ...bearer(await tokenFor(app, 'alice')), 'content-type': 'application/json' };
  const names = ["Robert'); DROP TABLE plants;--", '" OR 1=1 --', '%_\\', '🌵'.repeat(200), 'RTL \u202e override', 'NFC é vs NFD é'];
  for (const [index, name] of names.entries()) {
    const reply = await inject(t, app, {
      method: 'POST',
      url: '/plants',
      headers: auth,
      payload: JSON.stringify({ id: index, name, tag: name.slice(0, 100) }),
    });
    t.equal(reply.status, 200, name.slice(0, 30));
  }
  const listed = (await inject(t, app, { url: '/plants', headers: auth })).json();
  t.same(
    listed,
    names.map((name) => ({ name, tag: name.slice(0, 100) })),
    'exactly as sent',
  );
});
