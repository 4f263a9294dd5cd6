// Token hashes: the one form stores look tokens up by, and keep, is the SHA-256 hash in base64.
import { createHash } from 'node:crypto';
import t from 'tap';
import { hashToken, TOKEN } from '../../src/auth/tokens.js';

t.test('hashToken is the SHA-256 hash in base64, for any token', async (t) => {
  for (const token of [`pst_${'A'.repeat(43)}`, 'pst_I31wSkjPsGkaqCN_aFRHpL97Uq6NOvaSwrz-NxyMlG8', '', 'émoji 🌵']) {
    t.equal(hashToken(token), createHash('sha256').update(token).digest('base64'), JSON.stringify(token));
    t.equal(Buffer.from(hashToken(token), 'base64').length, 32);
  }
  t.ok(TOKEN.test(`pst_${'A'.repeat(43)}`));
});
