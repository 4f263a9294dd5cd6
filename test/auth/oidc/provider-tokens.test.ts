// Access tokens from a real OpenID provider (oidc-provider in this process): accepted for owner oidc:<sub>
// beside pst_ tokens; expired, foreign, forged and tampered ones refused with the RFC 6750 challenge;
// key rotation picked up; an unreachable provider answers 503 and service comes back by itself.
import { createPublicKey, createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import t from 'tap';
import { bearer, buildTestApp, inject, tokenFor } from '../../helpers/app.js';
import { OTHER_AUDIENCE, oidcSettings, signingKey, startProvider } from '../../helpers/oidc-provider.js';
import { until } from '../../helpers/until.js';

const INVALID = 'Bearer realm="plant-store", error="invalid_token", error_description="The access token is invalid or expired"';
const json = { 'content-type': 'application/json' };
const base64url = (value: object | string) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

t.test('a token from the provider is accepted; its owner is oidc:<sub>, apart from CLI users', async (t) => {
  const provider = await startProvider(t);
  const app = await buildTestApp(t, { oidc: oidcSettings(provider) });
  const token = await provider.token('plant-app');
  t.equal(decodeJwt(token).sub, 'plant-app');

  const created = await inject(t, app, {
    method: 'POST',
    url: '/plants',
    headers: { ...bearer(token), ...json },
    payload: '{"id":7,"name":"Provider fern"}',
  });
  t.equal(created.status, 200, 'created with a provider token');
  t.equal(await storedJson(app, 'oidc:plant-app'), '[{"name":"Provider fern"}]', 'stored for owner oidc:plant-app');
  const listed = await inject(t, app, { url: '/plants', headers: { ...bearer(token) } });
  t.same(listed.json(), [{ name: 'Provider fern' }], 'listed with the same token');

  // A CLI user of the same name is another owner: CLI names cannot contain ':'.
  const cli = await tokenFor(app, 'plant-app');
  t.same((await inject(t, app, { url: '/plants', headers: bearer(cli) })).json(), [], 'the CLI user plant-app sees none of them');
  t.equal((await inject(t, app, { method: 'DELETE', url: '/plants/7', headers: bearer(cli) })).status, 404, 'and cannot delete them');

  const other = await provider.token('other-app');
  t.same((await inject(t, app, { url: '/plants', headers: bearer(other) })).json(), [], 'another provider user sees none of them');

  for (let i = 0; i < 20; i++) t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 200);
  t.same(provider.requests, { discovery: 1, jwks: 1 }, 'discovery and keys fetched once for all those requests, not per request');
});

t.test('pst_ tokens work beside provider tokens, and without a provider a JWT is just an unknown token', async (t) => {
  const provider = await startProvider(t);
  const app = await buildTestApp(t, { oidc: oidcSettings(provider) });
  const cli = await tokenFor(app, 'alice');
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(cli) })).status, 200);
  t.same(provider.requests, { discovery: 0, jwks: 0 }, 'a pst_ token never asks the provider');

  const plain = await buildTestApp(t);
  const refused = await inject(t, plain, { url: '/plants', headers: bearer(await provider.token()) });
  t.equal(refused.status, 401);
  t.equal(
    refused.headers['www-authenticate'],
    'Bearer realm="plant-store", error="invalid_token"',
    'the usual challenge: this deployment has no provider',
  );
  t.same(provider.requests, { discovery: 0, jwks: 0 });
});

t.test('refused tokens: 401, the same challenge and message whatever failed, counted as failed authentications', async (t) => {
  const provider = await startProvider(t);
  // Another provider that claims to be this one, with keys of its own: its tokens name a key this issuer never published.
  const impostor = await startProvider(t, { issuer: provider.issuer });
  // Another issuer that signs with this provider's very keys: only `iss` is wrong.
  const otherIssuer = await startProvider(t);
  await otherIssuer.start(provider.keys);
  const app = await buildTestApp(t, { authFailuresPerMinute: 1000, oidc: oidcSettings(provider, { clockToleranceSeconds: 0 }) });

  const good = await provider.token();
  const [header, payload, signature] = good.split('.') as [string, string, string];
  const claims = decodeJwt(good);
  const publicPem = createPublicKey({ key: provider.keys[0] as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  const hsHeader = base64url({ alg: 'HS256', typ: 'at+jwt', kid: decodeProtectedHeader(good).kid });
  const hsSigned = `${hsHeader}.${payload}`;
  const shortLived = await provider.token('short-lived-app');
  const expiresAt = decodeJwt(shortLived).exp! * 1000;

  const cases: Array<[string, string]> = [
    ['wrong audience', await provider.token('plant-app', OTHER_AUDIENCE)],
    ['wrong issuer', await otherIssuer.token()],
    ['unknown signing key', await impostor.token()],
    ['tampered payload (another sub)', `${header}.${base64url({ ...claims, sub: 'someone-else' })}.${signature}`],
    ['tampered signature', `${header}.${payload}.${signature.slice(0, -4)}${signature.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`],
    ['alg none', `${base64url({ alg: 'none', typ: 'at+jwt' })}.${payload}.`],
    ['HS256 signed with the public key', `${hsSigned}.${createHmac('sha256', publicPem).update(hsSigned).digest('base64url')}`],
    ['header that is not JSON', `${base64url('not json')}.${payload}.${signature}`],
  ];
  await until(() => Date.now() > expiresAt + 1000, 5000, 'the short-lived token to expire');
  cases.push(['expired', shortLived]);

  t.equal((await inject(t, app, { url: '/plants', headers: bearer(good) })).status, 200, 'the untouched token is accepted');
  for (const [name, token] of cases) {
    const reply = await inject(t, app, {
      method: 'POST',
      url: '/plants',
      headers: { ...bearer(token), ...json },
      payload: '{"id":1,"name":"x"}',
    });
    t.equal(reply.status, 401, `${name}: 401`);
    t.equal(reply.headers['www-authenticate'], INVALID, `${name}: the challenge names no detail`);
    t.equal(
      reply.json().message,
      'The access token is not valid or has expired; sign in again to get a new one.',
      `${name}: the message too`,
    );
  }
  t.equal(await storedJson(app, 'oidc:plant-app'), '[]', 'nothing was created');
  t.equal(await storedJson(app, 'oidc:someone-else'), '[]');

  const limited = await buildTestApp(t, { authFailuresPerMinute: 2, oidc: oidcSettings(provider) });
  for (const [, token] of cases.slice(0, 2))
    t.equal((await inject(t, limited, { url: '/plants', headers: bearer(token), remoteAddress: '10.0.0.9' })).status, 401);
  const blocked = await inject(t, limited, { url: '/plants', headers: bearer(good), remoteAddress: '10.0.0.9' });
  t.equal(blocked.status, 429, 'refused provider tokens count towards the per-address limit');
});

t.test('an expired token is accepted within the clock tolerance', async (t) => {
  const provider = await startProvider(t);
  const app = await buildTestApp(t, { oidc: oidcSettings(provider, { clockToleranceSeconds: 30 }) });
  const token = await provider.token('short-lived-app');
  await until(() => Date.now() > decodeJwt(token).exp! * 1000 + 1000, 5000, 'the token to expire');
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(token) })).status, 200, 'a second past exp, inside 30 s of skew');
});

t.test('the user claim: another claim names the user; a missing or too long one is refused with a clear description', async (t) => {
  const provider = await startProvider(t);
  const byClient = await buildTestApp(t, { oidc: oidcSettings(provider, { userClaim: 'client_id' }) });
  const token = await provider.token('plant-app');
  t.equal(
    (await inject(t, byClient, { method: 'POST', url: '/plants', headers: { ...bearer(token), ...json }, payload: '{"id":1,"name":"x"}' }))
      .status,
    200,
  );
  t.equal(await storedJson(byClient, 'oidc:plant-app'), '[{"name":"x"}]', 'owner from client_id');

  const byEmail = await buildTestApp(t, { oidc: oidcSettings(provider, { userClaim: 'email' }) });
  const missing = await inject(t, byEmail, { url: '/plants', headers: bearer(token) });
  t.equal(missing.status, 401);
  t.equal(
    missing.headers['www-authenticate'],
    'Bearer realm="plant-store", error="invalid_token", error_description="The access token has no email claim of 1 to 255 characters to name the user"',
  );

  const longest = await provider.token('c'.repeat(255));
  const long = await buildTestApp(t, { oidc: oidcSettings(provider) });
  t.equal(
    (await inject(t, long, { method: 'POST', url: '/plants', headers: { ...bearer(longest), ...json }, payload: '{"id":1,"name":"x"}' }))
      .status,
    200,
    'a sub of 255 characters is stored',
  );
  t.equal(await storedJson(long, `oidc:${'c'.repeat(255)}`), '[{"name":"x"}]');
  const tooLong = await inject(t, long, { url: '/plants', headers: bearer(await provider.token('c'.repeat(256))) });
  t.equal(tooLong.status, 401, 'a sub of 256 characters is refused');
  t.match(
    tooLong.headers['www-authenticate'],
    /error_description="The access token has no sub claim of 1 to 255 characters to name the user"/,
  );
});

t.test('key rotation at the provider is picked up without a restart', async (t) => {
  const provider = await startProvider(t);
  const app = await buildTestApp(t, { oidc: oidcSettings(provider) });
  const before = await provider.token();
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(before) })).status, 200);
  t.equal(provider.requests.jwks, 1);

  await provider.stop();
  await provider.start([await signingKey('rotated'), ...provider.keys]);
  const after = await provider.token();
  t.equal(decodeProtectedHeader(after).kid, 'rotated', 'the provider signs with the new key');
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(after) })).status, 200, 'a token signed with the new key is accepted');
  t.equal(provider.requests.jwks, 2, 'the key set was fetched again for the unknown key');
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(before) })).status, 200, 'the old key, still published, still verifies');
  t.equal(provider.requests.jwks, 2);

  // The key set is refetched on an unknown key at most once a cooldown.
  const cooling = await buildTestApp(t, { oidc: oidcSettings(provider, { jwksCooldownMs: 600_000 }) });
  t.equal((await inject(t, cooling, { url: '/plants', headers: bearer(after) })).status, 200);
  const impostor = await startProvider(t, { issuer: provider.issuer });
  const fetched = provider.requests.jwks;
  for (let i = 0; i < 5; i++) t.equal((await inject(t, cooling, { url: '/plants', headers: bearer(await impostor.token()) })).status, 401);
  t.equal(provider.requests.jwks, fetched, 'unknown keys inside the cooldown do not make Plant Store fetch the key set');
});

t.test('an unreachable provider answers 503 with Retry-After, not 401 or 500, and service comes back by itself', async (t) => {
  const provider = await startProvider(t);
  const token = await provider.token();
  await provider.stop();
  const app = await buildTestApp(t, { authFailuresPerMinute: 1, oidc: oidcSettings(provider) });

  for (const operation of [
    { method: 'GET' as const, url: '/plants' },
    { method: 'POST' as const, url: '/plants', payload: '{"id":1,"name":"x"}' },
    { method: 'DELETE' as const, url: '/plants/1' },
  ]) {
    const reply = await inject(t, app, { ...operation, headers: { ...bearer(token), ...json } });
    t.equal(reply.status, 503, `${operation.method}: discovery unreachable, 503`);
    t.equal(reply.headers['retry-after'], '1', `${operation.method}: Retry-After, the back-off configured for the test`);
    t.match(reply.json(), { error: 503, message: /identity provider cannot be reached.* Retry in 1 second\.$/ });
    t.notOk('www-authenticate' in reply.headers, 'no challenge: the token was not found wrong');
  }
  t.same(provider.requests, { discovery: 0, jwks: 0 });

  await provider.start();
  await untilStatus(app, token, 200);
  t.pass('after the provider came back, the same app accepts the token: the 503s did not count as failed authentications (limit 1)');

  // Later: the provider rotates its key, then goes away; a token with the new key cannot be checked.
  await provider.stop();
  await provider.start([await signingKey('next'), ...provider.keys]);
  const next = await provider.token();
  await provider.stop();
  const reply = await inject(t, app, { url: '/plants', headers: bearer(next) });
  t.equal(reply.status, 503, 'key set unreachable for a new key: 503');
  t.equal(
    (await inject(t, app, { url: '/plants', headers: bearer(token) })).status,
    200,
    'a token whose key is cached is still checked meanwhile',
  );
  await provider.start();
  await untilStatus(app, next, 200);
  t.pass('recovered without restarting Plant Store');
});

t.test('a discovery document for another issuer is refused as a misconfiguration (503), never trusted', async (t) => {
  const provider = await startProvider(t);
  const app = await buildTestApp(t, { oidc: oidcSettings({ issuer: `${provider.issuer}/` }) });
  const reply = await inject(t, app, { url: '/plants', headers: bearer(await provider.token()) });
  t.equal(reply.status, 503, 'OIDC_ISSUER with a trailing slash the provider does not use');
  t.equal(provider.requests.jwks, 0);
});

/** The owner's first page as the store has it, straight from the store rather than through a token. */
async function storedJson(app: FastifyInstance, owner: string): Promise<string> {
  return (await app.store.forRequest().listPlants(owner, undefined, 10)).json;
}

/** Repeats the request until it answers `status`: the 503 back-off has to pass first. */
async function untilStatus(app: FastifyInstance, token: string, status: number): Promise<void> {
  let last = 0;
  const started = Date.now();
  while (last !== status) {
    if (Date.now() - started > 10_000) throw new Error(`still ${last} after 10 s`);
    last = (await app.inject({ url: '/plants', headers: bearer(token) })).statusCode;
    if (last !== status) await new Promise((resolve) => setTimeout(resolve, 50)); // the polling interval
  }
}
