// Names and tags, as the service validates them with the contract's pattern (Ajv, `u` flag): every class
// of control character and every kind of lone surrogate is refused with a 400 that changes nothing;
// astral characters and valid surrogate pairs are accepted and kept exactly.
import t from 'tap';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';

const LISTING = 'application/vnd.plant-store.listing+json';

/** JSON string contents with escapes, so lone surrogates reach the service as JSON allows them. */
const refused: Record<string, string> = {
  'NUL (C0)': 'a\\u0000b',
  'unit separator, the last C0': 'a\\u001fb',
  'an escaped newline (C0)': 'a\\nb',
  DEL: 'a\\u007fb',
  'NEL (C1)': 'a\\u0085b',
  'APC, the last C1': 'a\\u009fb',
  'a lone high surrogate': 'a\\ud83db',
  'a lone high surrogate at the end': 'a\\udbff',
  'a lone low surrogate': '\\udc00b',
  'a reversed pair': '\\ude00\\ud83d',
  'a pair and a lone high surrogate': '\\ud83c\\udf3f\\ud83c',
};

const accepted: Record<string, string> = {
  'an emoji (astral, one pair)': '🌿',
  'an emoji written as an escaped pair': '\\ud83c\\udf35',
  'the first and last astral code points': '\\ud800\\udc00 \\udbff\\udfff',
  'letters beside the control blocks (U+00A0, U+00FF)': '\u00a0ÿ',
  'CJK, combining marks, right-to-left text': '植物 é שלום',
  'a private-use character and U+FFFD': '\ue000\ufffd',
};

t.test('names and tags: control characters and lone surrogates are refused, astral characters kept', async (t) => {
  const app = await buildTestApp(t, { rateLimitPerMinute: 0 });
  const alice = { ...bearer(await tokenFor(app, 'alice')), 'content-type': 'application/json' };
  let id = 0;
  for (const [what, text] of Object.entries(refused)) {
    for (const field of ['name', 'tag']) {
      const payload = field === 'name' ? `{"id":${++id},"name":"${text}"}` : `{"id":${++id},"name":"ok","tag":"${text}"}`;
      const reply = await inject(t, app, { method: 'POST', url: '/plants', headers: alice, payload });
      t.equal(reply.status, 400, `${field} with ${what}: 400`);
      t.match(reply.json().message, /control characters or unpaired surrogates/, `${field} with ${what}: says why`);
    }
  }
  const listed = await inject(t, app, { url: '/plants', headers: { ...alice, accept: LISTING } });
  t.same(listed.json(), [], 'nothing refused was stored');

  const stored: { id: number; name: string; tag: string }[] = [];
  for (const [what, text] of Object.entries(accepted)) {
    const payload = `{"id":${++id},"name":"${text}","tag":"${text}"}`;
    const reply = await inject(t, app, { method: 'POST', url: '/plants', headers: alice, payload });
    t.equal(reply.status, 200, `${what}: accepted`);
    const value = JSON.parse(`"${text}"`) as string;
    stored.push({ id, name: value, tag: value });
  }
  const page = await inject(t, app, { url: '/plants?limit=1000', headers: { ...alice, accept: LISTING } });
  t.same(page.json(), stored, 'kept exactly, code unit for code unit');
});
