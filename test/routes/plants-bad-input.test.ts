// Every bad input gets its documented 4xx in the Error shape and changes nothing.
import t from 'tap';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';

t.test('bad bodies, queries and paths', async (t) => {
  const app = await buildTestApp(t);
  const auth = bearer(await tokenFor(app, 'alice'));
  await app.store.addPlant('alice', { id: 1n, name: 'Existing' });

  const post = (payload: string, contentType = 'application/json') =>
    inject(t, app, { method: 'POST', url: '/plants', headers: { ...auth, 'content-type': contentType }, payload });

  const badBodies: Array<[string, RegExp]> = [
    ['{"id":2}', /missing the required property "name"/],
    ['{"name":"x"}', /missing the required property "id"/],
    ['{"id":2,"name":"x","colour":"green"}', /unknown property "colour"/],
    ['{"id":2,"name":5}', /body\.name must be string/],
    ['{"id":"2","name":"x"}', /body\.id must be a JSON integer/],
    ['{"id":2.5,"name":"x"}', /body\.id must be a JSON integer/],
    ['{"id":2.0,"name":"x"}', /body\.id must be a JSON integer/],
    ['{"id":1e3,"name":"x"}', /body\.id must be a JSON integer/],
    ['{"id":-0,"name":"x"}', /body\.id must be a JSON integer/],
    ['{"id":1e400,"name":"x"}', /body\.id must be a JSON integer/],
    ['{"id":true,"name":"x"}', /body\.id must be a JSON integer/],
    ['{"id":null,"name":"x"}', /body\.id must be a JSON integer/],
    ['{"id":9223372036854775808,"name":"x"}', /from -9223372036854775808 to 9223372036854775807/],
    ['{"id":-9223372036854775809,"name":"x"}', /from -9223372036854775808 to 9223372036854775807/],
    ['{"id":2,"name":""}', /body\.name must NOT have fewer than 1 characters/],
    [`{"id":2,"name":"${'a'.repeat(201)}"}`, /body\.name must NOT have more than 200 characters/],
    [`{"id":2,"name":"x","tag":"${'a'.repeat(101)}"}`, /body\.tag must NOT have more than 100 characters/],
    ['{"id":2,"name":"x","tag":null}', /body\.tag must be string/],
    ['{"id":2,"name":"a\\u0000b"}', /control characters or unpaired surrogates/],
    ['{"id":2,"name":"\\ud800"}', /control characters or unpaired surrogates/],
    ['[{"id":2,"name":"x"}]', /body must be object/],
    ['"plant"', /body must be object/],
    ['{"id":2,"name":"x"', /not valid JSON/],
    ['{"id":2,"name":"x","id":3}', /appears twice/],
    ['{"id":2,"name":"x","__proto__":{"admin":true}}', /unknown property "__proto__"/],
    ['{"id":2,"name":"x","constructor":{}}', /unknown property "constructor"/],
    ['[' .repeat(5000) + ']'.repeat(5000), /./],
  ];
  for (const [payload, message] of badBodies) {
    const reply = await post(payload);
    t.equal(reply.status, 400, payload.slice(0, 60));
    t.match(reply.json().message, message, payload.slice(0, 60));
  }
  // 200 characters of a four-byte emoji are 200 characters, not 400 UTF-16 units.
  t.equal((await post(`{"id":3,"name":"${'🌵'.repeat(200)}"}`)).status, 200);

  t.equal((await post('{"id":2,"name":"x"}', 'text/plain')).status, 415);
  t.equal((await post('id=2&name=x', 'application/x-www-form-urlencoded')).status, 415);
  const tooLarge = await post(`{"id":2,"name":"x","tag":"${'a'.repeat(17000)}"}`);
  t.equal(tooLarge.status, 413);
  t.match(tooLarge.json().message, /larger than 16384 bytes/);
  t.equal((await inject(t, app, { method: 'POST', url: '/plants', headers: auth })).status, 400, 'no body at all');
  const empty = await inject(t, app, { method: 'POST', url: '/plants', headers: { ...auth, 'content-type': 'application/json' }, payload: '' });
  t.equal(empty.status, 400);

  for (const query of ['limit=0', 'limit=1001', 'limit=-1', 'limit=abc', 'limit=1.5', 'limit=1e2', 'limit=', 'limit=1&limit=2', 'limit=0x10', 'limit=%2B1', 'cursor=', 'cursor=***', 'cursor=djE6', 'cursor=eHl6', `cursor=${'A'.repeat(65)}`]) {
    const reply = await inject(t, app, { method: 'GET', url: `/plants?${query}`, headers: auth });
    t.equal(reply.status, 400, query);
  }
  for (const id of ['abc', '1e3', '0x10', '+1', '%20', '1.0', '-0', '01', '9223372036854775808', '-9223372036854775809', '1%2F2', '%00']) {
    const reply = await inject(t, app, { method: 'DELETE', url: `/plants/${id}`, headers: auth });
    t.equal(reply.status, 400, `DELETE /plants/${id}`);
  }
  t.equal((await inject(t, app, { method: 'DELETE', url: '/plants/../1', headers: auth })).status, 404, 'dot segments are not a plant');
  const deleteText = await inject(t, app, { method: 'DELETE', url: '/plants/1', headers: { ...auth, 'content-type': 'text/plain' }, payload: 'please' });
  t.equal(deleteText.status, 415, 'a DELETE body must be JSON too');
  const deleteLarge = await inject(t, app, { method: 'DELETE', url: '/plants/1', headers: { ...auth, 'content-type': 'application/json' }, payload: `"${'a'.repeat(17000)}"` });
  t.equal(deleteLarge.status, 413);

  const list = await inject(t, app, { method: 'GET', url: '/plants', headers: auth });
  t.same(list.json(), [{ name: 'Existing' }, { name: '🌵'.repeat(200) }], 'only the valid create changed the store');
});

t.test('SQL metacharacters are data', async (t) => {
  const app = await buildTestApp(t);
  const auth = { ...bearer(await tokenFor(app, 'alice')), 'content-type': 'application/json' };
  const name = "Robert'); DROP TABLE plants;--";
  const reply = await inject(t, app, { method: 'POST', url: '/plants', headers: auth, payload: JSON.stringify({ id: 1, name, tag: '" OR 1=1 --' }) });
  t.equal(reply.status, 200);
  t.same((await inject(t, app, { method: 'GET', url: '/plants', headers: auth })).json(), [{ name, tag: '" OR 1=1 --' }]);
});
