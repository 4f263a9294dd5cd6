// Bearer authentication on every plant operation: exact status, body and WWW-Authenticate.
import t from 'tap';
import { createToken } from '../../src/auth/tokens.js';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';

const MISSING = 'Bearer realm="plant-store"';
const INVALID = 'Bearer realm="plant-store", error="invalid_token"';
const operations = [
  { method: 'GET' as const, url: '/plants' },
  { method: 'POST' as const, url: '/plants', payload: '{"id":1,"name":"x"}' },
  { method: 'DELETE' as const, url: '/plants/1' },
];

t.test('authentication matrix', async (t) => {
  const app = await buildTestApp(t, { authFailuresPerMinute: 1000 });
  const alice = await tokenFor(app, 'alice');
  const revoked = await tokenFor(app, 'carol');
  const [revokedInfo] = (await app.store.listTokens()).filter((token) => token.user === 'carol');
  await app.store.revokeToken(revokedInfo!.id);
  const expired = (await createToken(app.store, 'dave', new Date(Date.now() - 1000))).token;

  const cases: Array<[string, Record<string, string>, string, string | undefined]> = [
    ['no header', {}, MISSING, undefined],
    ['empty header', { authorization: '' }, MISSING, undefined],
    ['Basic scheme', { authorization: 'Basic YWxpY2U6c2VjcmV0' }, MISSING, undefined],
    ['scheme only', { authorization: 'Bearer' }, MISSING, undefined],
    ['token without scheme', { authorization: alice }, MISSING, undefined],
    ['unknown token', bearer(`pst_${'A'.repeat(43)}`), INVALID, undefined],
    ['malformed token', bearer('not-a-token'), INVALID, undefined],
    ['two tokens', { authorization: `Bearer ${alice} ${alice}` }, INVALID, undefined],
    ['two tokens, comma', { authorization: `Bearer ${alice}, Bearer ${alice}` }, INVALID, undefined],
    ['revoked token', bearer(revoked), INVALID, undefined],
    ['expired token', bearer(expired), INVALID, undefined],
    ['__proto__', bearer('__proto__'), INVALID, undefined],
    ['constructor', bearer('constructor'), INVALID, undefined],
    ['toString', bearer('toString'), INVALID, undefined],
    ['hasOwnProperty', bearer('hasOwnProperty'), INVALID, undefined],
    ['token with a suffix', bearer(`${alice}x`), INVALID, undefined],
  ];
  for (const operation of operations) {
    for (const [name, headers, challenge] of cases) {
      const reply = await inject(t, app, { ...operation, headers: { 'content-type': 'application/json', ...headers } });
      t.equal(reply.status, 401, `${operation.method} ${name}`);
      t.equal(reply.headers['www-authenticate'], challenge, `${operation.method} ${name}: challenge`);
      t.match(reply.json().message, challenge === MISSING ? /needs a bearer token/ : /not valid/);
    }
    const viaQuery = await inject(t, app, {
      ...operation,
      url: `${operation.url}?access_token=${alice}`,
      headers: { 'content-type': 'application/json' },
    });
    t.equal(viaQuery.status, 401, `${operation.method} token in the query string is ignored`);
  }

  const good = [
    bearer(alice),
    { authorization: `bearer ${alice}` },
    { authorization: `BEARER ${alice}` },
    { authorization: `Bearer    ${alice}` },
  ];
  for (const headers of good) {
    t.equal((await inject(t, app, { method: 'GET', url: '/plants', headers })).status, 200, headers.authorization.slice(0, 12));
  }
});

t.test('a revoked token fails on its very next request', async (t) => {
  const app = await buildTestApp(t);
  const token = await tokenFor(app, 'alice');
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 200);
  const [info] = await app.store.listTokens();
  t.ok(await app.store.revokeToken(info!.id));
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 401);
  t.notOk(await app.store.revokeToken(info!.id), 'revoking twice reports nothing to revoke');
});

t.test('an expired token counts as a failed authentication, like a revoked one', async (t) => {
  const app = await buildTestApp(t, { authFailuresPerMinute: 2 });
  const valid = await tokenFor(app, 'alice');
  const expired = (await createToken(app.store, 'bob', new Date(Date.now() - 1000))).token;
  for (let i = 0; i < 2; i++)
    t.equal((await inject(t, app, { url: '/plants', headers: bearer(expired), remoteAddress: '10.0.0.9' })).status, 401);
  t.equal(
    (await inject(t, app, { url: '/plants', headers: bearer(valid), remoteAddress: '10.0.0.9' })).status,
    429,
    'two failures use up the budget',
  );
});

t.test('open endpoints need no token', async (t) => {
  const app = await buildTestApp(t);
  for (const url of ['/healthz', '/readyz', '/openapi.json', '/openapi.yaml', '/docs']) {
    const reply = await inject(t, app, { url });
    t.ok(reply.status < 400, `${url} answers ${reply.status}`);
  }
});

t.test('failed authentications are limited per address, valid tokens from elsewhere are not', async (t) => {
  const app = await buildTestApp(t, { authFailuresPerMinute: 3 });
  const token = await tokenFor(app, 'alice');
  for (let i = 0; i < 3; i++) {
    t.equal((await inject(t, app, { url: '/plants', headers: bearer('wrong'), remoteAddress: '10.0.0.1' })).status, 401);
  }
  const blocked = await inject(t, app, { url: '/plants', headers: bearer(token), remoteAddress: '10.0.0.1' });
  t.equal(blocked.status, 429, 'blocked, even with a valid token, so guessing cannot continue');
  const retryAfter = Number(blocked.headers['retry-after']);
  t.ok(retryAfter > 0 && retryAfter <= 60);
  t.equal(blocked.headers['ratelimit-policy'], '"auth-failures";q=3;w=60', 'the 429 names the limit that refused it');
  t.equal(blocked.headers.ratelimit, `"auth-failures";r=0;t=${retryAfter}`, 'nothing left, until Retry-After');
  t.match(blocked.json().message, /failed authentications/);
  for (const { method, url, payload } of operations) {
    const reply = await inject(t, app, {
      method,
      url,
      payload,
      headers: { ...bearer('wrong'), 'content-type': 'application/json' },
      remoteAddress: '10.0.0.1',
    });
    t.equal(reply.status, 429, `${method} ${url} blocked`);
  }
  t.equal(
    (await inject(t, app, { url: '/plants', headers: bearer(token), remoteAddress: '10.0.0.2' })).status,
    200,
    'another address is unaffected',
  );
});

t.test('per-token rate limit answers 429 with Retry-After on every operation', async (t) => {
  const app = await buildTestApp(t, { rateLimitPerMinute: 2 });
  const alice = bearer(await tokenFor(app, 'alice'));
  const bob = bearer(await tokenFor(app, 'bob'));
  for (const { method, url, payload } of operations) {
    const headers = { ...alice, 'content-type': 'application/json' };
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await inject(t, app, { method, url, payload, headers }));
    const limited = replies.at(-1)!;
    t.equal(limited.status, 429, `${method} ${url}`);
    t.ok(Number(limited.headers['retry-after']) > 0);
    t.match(limited.json().message, /Too many requests/);
  }
  t.equal((await inject(t, app, { url: '/plants', headers: bob })).status, 200, 'other tokens keep their own budget');
});

t.test('every answer the per-token limit counts carries RateLimit-Policy and RateLimit; no x-ratelimit-* field', async (t) => {
  const app = await buildTestApp(t, { rateLimitPerMinute: 3, authFailuresPerMinute: 1000 });
  const alice = { ...bearer(await tokenFor(app, 'alice')), 'content-type': 'application/json' };
  const answers = [
    await inject(t, app, { url: '/plants', headers: alice }),
    await inject(t, app, { method: 'POST', url: '/plants', headers: alice, payload: '{"id":1}' }),
    await inject(t, app, { method: 'DELETE', url: '/plants/7', headers: alice }),
    await inject(t, app, { url: '/plants', headers: alice }),
  ];
  t.same(
    answers.map((answer) => answer.status),
    [200, 400, 404, 429],
  );
  t.same(
    answers.map((answer) => answer.headers['ratelimit-policy']),
    Array(4).fill('"per-token";q=3;w=60'),
  );
  // Structured Field Lists (draft-ietf-httpapi-ratelimit-headers-11, section 4): the policy's name, then r and t.
  const fields = answers.map((answer) => /^"per-token";r=(\d+);t=(\d+)$/.exec(String(answer.headers.ratelimit)));
  t.same(
    fields.map((field) => Number(field?.[1])),
    [2, 1, 0, 0],
    'r counts down, on successes and refusals alike',
  );
  for (const field of fields) t.ok(Number(field?.[2]) >= 1 && Number(field?.[2]) <= 60, `t=${field?.[2]}: within the minute`);
  t.equal(answers[3]!.headers['retry-after'], fields[3]![2], 'the 429: Retry-After is the end of the window');
  for (const answer of answers)
    t.same(
      Object.keys(answer.headers).filter((name) => name.startsWith('x-ratelimit')),
      [],
    );

  const unauthenticated = await inject(t, app, { url: '/plants', headers: bearer('wrong') });
  t.equal(unauthenticated.status, 401);
  t.equal(unauthenticated.headers.ratelimit, undefined, 'a 401 counts against no token, and says nothing of the failure limit');
  t.equal(unauthenticated.headers['ratelimit-policy'], undefined);
  t.equal((await inject(t, app, { url: '/healthz' })).headers.ratelimit, undefined, 'open endpoints are not limited');
});

t.test('RATE_LIMIT_PER_MINUTE=0 turns the per-token limit off, and its fields with it', async (t) => {
  const app = await buildTestApp(t, { rateLimitPerMinute: 0 });
  const alice = bearer(await tokenFor(app, 'alice'));
  for (let i = 0; i < 20; i++) {
    const reply = await inject(t, app, { url: '/plants', headers: alice });
    t.equal(reply.status, 200);
    t.equal(reply.headers.ratelimit, undefined);
  }
});

t.test("another user's valid token reaches only that user's plants", async (t) => {
  const app = await buildTestApp(t);
  const alice = bearer(await tokenFor(app, 'alice'));
  const bob = bearer(await tokenFor(app, 'bob'));
  const json = { 'content-type': 'application/json' };
  t.equal(
    (await inject(t, app, { method: 'POST', url: '/plants', headers: { ...alice, ...json }, payload: '{"id":1,"name":"Alice fern"}' }))
      .status,
    200,
  );
  const list = await inject(t, app, { url: '/plants', headers: bob });
  t.same([list.status, list.json()], [200, []], "GET with bob's token: bob's (empty) list");
  const remove = await inject(t, app, { method: 'DELETE', url: '/plants/1', headers: bob });
  t.same(
    [remove.status, remove.json()],
    [404, { error: 404, message: 'You have no plant with id 1.' }],
    "DELETE of alice's plant with bob's token: 404",
  );
  const create = await inject(t, app, {
    method: 'POST',
    url: '/plants',
    headers: { ...bob, ...json },
    payload: '{"id":1,"name":"Bob fern"}',
  });
  t.same([create.status, create.json()], [200, { name: 'Bob fern' }], "POST with bob's token: bob's own plant 1, no conflict");
  t.same((await inject(t, app, { url: '/plants', headers: alice })).json(), [{ name: 'Alice fern' }], "alice's plant is untouched");
});
