// The opaque cursor: any int64 id goes round exactly; anything this service did not issue is refused.
import t from 'tap';
import { decodeCursor, encodeCursor } from '../../src/pagination/cursor.js';

t.test('every int64 id goes round exactly', async (t) => {
  for (const id of [-9223372036854775808n, -1n, 0n, 1n, 9007199254740993n, 9223372036854775807n]) {
    t.equal(decodeCursor(encodeCursor(id)), id, String(id));
    t.match(encodeCursor(id), /^[A-Za-z0-9_-]+$/, 'URL-safe');
  }
});

t.test('a cursor this service did not issue is refused', async (t) => {
  const made = (text: string) => Buffer.from(text).toString('base64url');
  for (const cursor of [
    '',
    'x',
    made('v1:'),
    made('v1:-0'),
    made('v1:01'),
    made('v1:1.5'),
    made('v2:1'),
    made('1'),
    made('v1:9223372036854775808'),
    made('v1:-9223372036854775809'),
    `${encodeCursor(5n)}=`,
    `${made('v1:5')}A`,
  ]) {
    t.throws(() => decodeCursor(cursor), { code: 'PLANT_STORE_INVALID_CURSOR' }, JSON.stringify(cursor));
  }
});
