// Token hashes: the text form used for in-memory lookups is the stored hash, in base64.
import t from 'tap';
import { hashToken, hashTokenText, looksLikeToken } from '../../src/auth/tokens.js';

t.test('hashTokenText is hashToken in base64, for any token', async (t) => {
  for (const token of [`pst_${'A'.repeat(43)}`, 'pst_I31wSkjPsGkaqCN_aFRHpL97Uq6NOvaSwrz-NxyMlG8', '', 'émoji 🌵']) {
    t.equal(hashTokenText(token), hashToken(token).toString('base64'), JSON.stringify(token));
    t.equal(Buffer.from(hashTokenText(token), 'base64').length, 32);
  }
  t.ok(looksLikeToken(`pst_${'A'.repeat(43)}`));
});
