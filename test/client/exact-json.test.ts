// stringifyExact writes what JSON.stringify writes, except that bigints become bare digits.
import fc from 'fast-check';
import t from 'tap';
import { stringifyExact } from '../../clients/typescript/src/exact-json.js';

const hasRoundedInteger = (value: unknown): boolean =>
  typeof value === 'number'
    ? Number.isInteger(value) && !Number.isSafeInteger(value)
    : typeof value === 'object' && value !== null && Object.values(value).some(hasRoundedInteger);

t.test('bigints are written digit for digit, anywhere in the value', async (t) => {
  t.equal(stringifyExact({ id: 9223372036854775807n, name: 'Max' }), '{"id":9223372036854775807,"name":"Max"}');
  t.equal(stringifyExact([-9223372036854775808n, 0n, 1n]), '[-9223372036854775808,0,1]');
  t.equal(stringifyExact({ nested: { ids: [2n ** 70n] } }), '{"nested":{"ids":[1180591620717411303424]}}');
});

t.test('anything without a bigint comes out exactly as JSON.stringify writes it (or is refused, past 2^53)', async (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      if (!hasRoundedInteger(value)) return stringifyExact(value) === JSON.stringify(value);
      try {
        stringifyExact(value);
        return false;
      } catch (error) {
        return error instanceof RangeError;
      }
    }),
    { numRuns: 500 },
  );
  const odd = { date: new Date(0), gone: undefined, fn: () => 1, list: [undefined, () => 1], text: 'quote " and \u2028', nan: NaN };
  t.equal(stringifyExact(odd), JSON.stringify(odd));
});

t.test('integer numbers beyond 2^53 are refused: they were rounded before they got here', async (t) => {
  // eslint-disable-next-line no-loss-of-precision -- the point: a literal already rounded by JavaScript is refused
  t.throws(() => stringifyExact({ id: 9223372036854775807 }), RangeError);
  t.throws(() => stringifyExact({ id: -(2 ** 53) }), RangeError);
  t.equal(stringifyExact({ id: Number.MAX_SAFE_INTEGER }), '{"id":9007199254740991}');
  t.equal(stringifyExact({ ratio: 0.5 }), '{"ratio":0.5}');
});
