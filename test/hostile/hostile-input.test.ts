// Sends the hostile-input corpus: each request gets its documented 4xx in the Error shape,
// and afterwards the store holds exactly what it held before.
import { connect } from 'node:net';
import t from 'tap';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';
import { checkResponse } from '../helpers/contract.js';
import { corpus } from './corpus.js';

async function snapshot(app: Awaited<ReturnType<typeof buildTestApp>>) {
  const users = ['alice', 'bob'];
  return {
    plants: await Promise.all(users.map((user) => app.store.forRequest().listPlants(user, undefined, 1000))),
    // Without the last use: the corpus authenticates as alice, and recording that is no change it made.
    tokens: (await app.store.listTokens()).map(({ lastUsedAt: _used, ...token }) => token),
  };
}

/** Raw bytes over a real socket, for what app.inject cannot send: oversized headers, broken HTTP. */
function rawRequest(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.on('end', () => resolve(answer));
    socket.on('error', (error) => (answer ? resolve(answer) : reject(error)));
    socket.end(bytes);
  });
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

t.test('over real HTTP: oversized headers, broken HTTP and request smuggling', async (t) => {
  const app = await buildTestApp(t);
  const token = await tokenFor(app, 'alice');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const before = await snapshot(app);
  const body = '{"id":5,"name":"smuggled"}';
  const cases: Array<[string, string, number]> = [
    [
      'headers over 16 KiB',
      `GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
    ],
    ['not HTTP at all', 'HELLO THERE\r\n\r\n', 400],
    ['a header without a colon', 'GET /plants HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n', 400],
    [
      'Content-Length and Transfer-Encoding together',
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      400,
    ],
    [
      'two Content-Length headers',
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nContent-Length: 3\r\n\r\n${body}`,
      400,
    ],
  ];
  for (const [name, bytes, status] of cases) {
    const answer = await rawRequest(port, bytes);
    const [head = '', payload = ''] = answer.split('\r\n\r\n');
    t.match(head, new RegExp(`^HTTP/1.1 ${status} `), name);
    t.match(head, /content-type: application\/json/i, `${name}: JSON`);
    t.same(
      checkResponse('GET', '/no-operation', { status, headers: { 'content-type': 'application/json' }, body: payload }),
      [],
      `${name}: Error shape`,
    );
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
