// Bodies are UTF-8 JSON, as RFC 8259 requires: bytes that are not UTF-8 are refused with 400 and a
// charset other than UTF-8 with 415, never decoded into something else and stored.
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';

const body = (name: Buffer) => Buffer.concat([Buffer.from('{"id":1,"name":"'), name, Buffer.from('"}')]);

const NOT_UTF8: Record<string, Buffer> = {
  'a lone continuation byte': Buffer.from([0x61, 0x80, 0x62]),
  'a lead byte without its continuation': Buffer.from([0xc3, 0x28]),
  'an overlong encoding of "/"': Buffer.from([0xc0, 0xaf]),
  'an encoded surrogate': Buffer.from([0xed, 0xa0, 0x80]),
  'a sequence cut off at the end': Buffer.from([0x61, 0xe2, 0x82]),
  'a code point beyond U+10FFFF': Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  'Latin-1 "é"': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
};

async function setup(t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t);
  const auth = bearer(await tokenFor(app, 'alice'));
  const listed = async () => (await inject(t, app, { url: '/plants', headers: auth })).json();
  return { app, auth, listed };
}

t.test('a body that is not UTF-8 answers 400 and stores nothing', async (t) => {
  const { app, auth, listed } = await setup(t);
  for (const [what, bytes] of Object.entries(NOT_UTF8)) {
    const reply = await inject(t, app, {
      method: 'POST',
      url: '/plants',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: body(bytes),
    });
    t.equal(reply.status, 400, what);
    t.match(reply.json().message, /^The body is not valid UTF-8/, what);
  }
  t.same(await listed(), [], 'nothing was stored, not even with U+FFFD in place of the bytes');
});

t.test('a charset other than UTF-8 answers 415 and stores nothing', async (t) => {
  const { app, auth, listed } = await setup(t);
  for (const type of [
    'application/json; charset=iso-8859-1',
    'application/json;charset=latin1',
    'application/json; charset="UTF-16"',
    'application/json; charset=utf-16le',
    'application/json; charset=',
  ]) {
    const reply = await inject(t, app, {
      method: 'POST',
      url: '/plants',
      headers: { ...auth, 'content-type': type },
      payload: '{"id":1,"name":"cafe"}',
    });
    t.equal(reply.status, 415, type);
    t.match(reply.json().message, /UTF-8/, type);
  }
  t.same(await listed(), []);
});

t.test('a compressed body answers 415 with Accept-Encoding: identity and stores nothing', async (t) => {
  const { app, auth, listed } = await setup(t);
  const plain = '{"id":1,"name":"cafe"}';
  const cases: Array<[string, string | Buffer]> = [
    ['gzip', gzipSync(plain)],
    ['GZIP', gzipSync(plain)],
    ['br', plain], // not even compressed: the header alone is refused, as the bytes cannot be trusted to be what it says
    ['deflate, gzip', plain],
  ];
  for (const [encoding, payload] of cases) {
    const reply = await inject(t, app, {
      method: 'POST',
      url: '/plants',
      headers: { ...auth, 'content-type': 'application/json', 'content-encoding': encoding },
      payload,
    });
    t.equal(reply.status, 415, encoding);
    t.equal(reply.headers['accept-encoding'], 'identity', encoding);
    t.match(
      reply.json().message,
      new RegExp(`^The body has Content-Encoding: ${encoding.toLowerCase()}, .*send it uncompressed`),
      encoding,
    );
  }
  t.same(await listed(), []);
  const identity = await inject(t, app, {
    method: 'POST',
    url: '/plants',
    headers: { ...auth, 'content-type': 'application/json', 'content-encoding': 'identity' },
    payload: plain,
  });
  t.equal(identity.status, 200, 'identity is no coding at all');
  t.equal(identity.headers['accept-encoding'], undefined);
});

t.test('UTF-8, said or not, is accepted, and non-ASCII names are kept byte for byte', async (t) => {
  const { app, auth, listed } = await setup(t);
  const types = [
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=UTF-8',
    'application/json;charset="utf-8"',
    'application/json; charset=utf8',
  ];
  for (const [i, type] of types.entries()) {
    const reply = await inject(t, app, {
      method: 'POST',
      url: '/plants',
      headers: { ...auth, 'content-type': type },
      payload: Buffer.from(`{"id":${i},"name":"café ✓ 🌱 \uFFFD"}`),
    });
    t.equal(reply.status, 200, type);
  }
  t.same(
    await listed(),
    types.map(() => ({ name: 'café ✓ 🌱 \uFFFD' })),
    'a U+FFFD the client sent is kept: only invalid bytes are refused',
  );
});

t.test('a message with no content: its Content-Type describes nothing, and a DELETE goes ahead', async (t) => {
  const { app, auth, listed } = await setup(t);
  const create = (id: number) => inject(t, app, { method: 'POST', url: '/plants', headers: auth, payload: { id, name: `plant ${id}` } });
  for (const id of [1, 2, 3, 4]) t.equal((await create(id)).status, 200);
  // What fetch(url, { method: 'DELETE', body: '' }) sends; new URLSearchParams() as the body is the second.
  for (const [id, type] of [
    [1, 'text/plain;charset=UTF-8'],
    [2, 'application/x-www-form-urlencoded;charset=UTF-8'],
  ] as const) {
    const deleted = await inject(t, app, {
      method: 'DELETE',
      url: `/plants/${id}`,
      headers: { ...auth, 'content-type': type, 'content-length': '0' },
    });
    t.equal(deleted.status, 204, `DELETE with ${type} and no content: 204`);
  }
  // Node's fetch sends that DELETE with neither Content-Length nor Transfer-Encoding: no body either (RFC 9112, 6.3).
  const unframed = await inject(t, app, { method: 'DELETE', url: '/plants/4', headers: { ...auth, 'content-type': 'text/plain' } });
  t.equal(unframed.status, 204, 'DELETE with text/plain and no framing: 204');
  const withText = await inject(t, app, {
    method: 'DELETE',
    url: '/plants/3',
    headers: { ...auth, 'content-type': 'text/plain' },
    payload: 'please',
  });
  t.equal(withText.status, 415, 'a DELETE with a text body is still refused');
  t.same(await listed(), [{ name: 'plant 3' }], 'and changed nothing');
  const emptyPost = await inject(t, app, {
    method: 'POST',
    url: '/plants',
    headers: { ...auth, 'content-type': 'text/plain', 'content-length': '0' },
  });
  t.equal(emptyPost.status, 415, 'a POST, which needs a body, is refused: 415');
  t.match(emptyPost.json().message, /^Send the body as application\/json, not text\/plain\.$/);
  const unrouted = await inject(t, app, { method: 'POST', url: '/nothing', headers: { 'content-type': 'text/plain' }, payload: 'x' });
  t.equal(unrouted.status, 404, 'a path no route serves is 404 whatever the body');
  const untyped = await inject(t, app, { method: 'POST', url: '/plants', headers: auth, payload: Buffer.from('{"id":9,"name":"x"}') });
  t.equal(untyped.status, 415);
  t.equal(untyped.json().message, 'Send the body as application/json, and say so in Content-Type.');
});
