// Bodies are UTF-8 JSON, as RFC 8259 requires: bytes that are not UTF-8 are refused with 400 and a
// charset other than UTF-8 with 415, never decoded into something else and stored. (How a body is framed and
// coded, Content-Encoding and bodies with no content, are rows of the edge's table: test/http/edge-cases.ts.)
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
