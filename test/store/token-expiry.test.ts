// Tokens that expire, on each store: not found once expired, also when the SQLite store has the token in its cache.
import t from 'tap';
import { createToken, hashToken } from '../../src/auth/tokens.js';
import { bearer, buildTestApp } from '../helpers/app.js';
import { storeKind } from '../helpers/store-under-test.js';

t.test('findToken finds a token before its expiry and not after; token list says which', async (t) => {
  const app = await buildTestApp(t);
  const later = new Date(Date.now() + 3_600_000);
  const forever = await createToken(app.store, 'alice');
  const expiring = await createToken(app.store, 'bob', later);
  const expired = await createToken(app.store, 'carol', new Date(Date.now() - 1));
  t.same(await app.store.forRequest().findToken(hashToken(forever.token)), { tokenId: forever.id, user: 'alice' });
  t.same(await app.store.forRequest().findToken(hashToken(expiring.token)), { tokenId: expiring.id, user: 'bob' });
  t.equal(await app.store.forRequest().findToken(hashToken(expired.token)), undefined, 'an expired token is not found');
  t.equal(await app.store.forRequest().findToken(hashToken(expired.token)), undefined, 'nor the second time (SQLite: nor from its cache)');

  const listed = await app.store.listTokens();
  t.match(listed, [
    { id: forever.id, user: 'alice', expiresAt: null, expired: false, revokedAt: null },
    { id: expiring.id, user: 'bob', expiresAt: later.toISOString(), expired: false, revokedAt: null },
    { id: expired.id, user: 'carol', expiresAt: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, expired: true, revokedAt: null },
  ]);
  t.ok(await app.store.revokeToken(expired.id), 'an expired token can still be revoked');
});

t.test(
  `a token in use is refused from the moment it expires (${storeKind}${storeKind === 'sqlite' ? ', from the token cache' : ''})`,
  async (t) => {
    const app = await buildTestApp(t, { rateLimitPerMinute: 0 });
    // Made directly in the store: the CLI's shortest lifetime is a minute.
    // Long enough for a cold first request on a busy machine to come before it: 400 ms once was not.
    const expiresAt = Date.now() + 1500;
    const { token } = await createToken(app.store, 'alice', new Date(expiresAt));
    let accepted = 0;
    for (;;) {
      const sent = Date.now();
      const reply = await app.inject({ url: '/plants', headers: bearer(token) });
      const answered = Date.now();
      if (reply.statusCode === 200) {
        accepted++;
        // The store looked at its clock after `sent`: accepting then was accepting an expired token.
        if (sent >= expiresAt) t.fail(`accepted ${sent - expiresAt} ms after its expiry`);
        if (sent > expiresAt + 2000) break;
        continue;
      }
      t.equal(reply.statusCode, 401, 'refused as a revoked token is');
      t.equal(reply.headers['www-authenticate'], 'Bearer realm="plant-store", error="invalid_token"');
      t.ok(answered >= expiresAt, `not refused before its expiry (${answered - expiresAt} ms after)`);
      t.ok(answered - expiresAt < 500, `refused ${answered - expiresAt} ms after its expiry, at the first request after it`);
      break;
    }
    t.ok(
      accepted >= 2,
      `accepted ${accepted} times while valid (after the first, ${storeKind === 'sqlite' ? 'from the cache' : 'from the database'})`,
    );
  },
);
