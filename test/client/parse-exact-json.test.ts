// The client's exact JSON parser: JSON.parse's answers, except that integers are bigints, digit for digit.
import t from 'tap';
import { parseExactJson } from '../../src/validation/parse-exact-json.js';
import { parsePlantListings } from '../../clients/typescript/src/plant-listings.js';

t.test('integers are bigints, digit for digit; everything else is what JSON.parse says', async (t) => {
  t.same(parseExactJson('[9223372036854775807, -9223372036854775808, 9007199254740993, 0, -0]'), [
    9223372036854775807n,
    -9223372036854775808n,
    9007199254740993n,
    0n,
    0n,
  ]);
  t.equal(parseExactJson('1.5'), 1.5);
  t.equal(parseExactJson('1e3'), 1000);
  t.equal(parseExactJson('-2.5E-1'), -0.25);
  for (const text of [
    '"a\\"b\\\\c\\u00e9\\ud83c\\udf35\\n"',
    'true',
    'false',
    'null',
    ' {"a" : [ {} , [] , "x" ] } ',
    '{"name":"é 🌵 </script>","tag":""}',
    '[]',
  ]) {
    const expected = JSON.parse(text) as unknown;
    t.same(parseExactJson(text), expected, text);
  }
});

t.test('__proto__ is a member like any other, not a way to set a prototype', async (t) => {
  const parsed = parseExactJson('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(parsed), Object.prototype, 'the prototype is the usual one, unchanged');
  t.same(Object.keys(parsed), ['__proto__']);
  t.same(parsed.__proto__, { polluted: 1n }, 'the member is data');
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});

t.test('anything that is not one whole JSON value is a SyntaxError', async (t) => {
  for (const text of [
    '',
    '[',
    '[1,]',
    '[1 2]',
    '{"a"}',
    '{"a":1,}',
    '{a:1}',
    '01',
    '+1',
    '1.',
    '.5',
    '"\t"',
    "'a'",
    'NaN',
    '[1]x',
    '{"a":1}}',
    'tru',
    '"\\x"',
  ]) {
    t.throws(() => parseExactJson(text), SyntaxError, JSON.stringify(text));
  }
});

t.test('a listing body becomes PlantListings; anything else is refused naming the item', async (t) => {
  t.same(parsePlantListings('[{"id":9223372036854775807,"name":"Max"},{"name":"Fern","tag":"green","id":-1}]'), [
    { id: 9223372036854775807n, name: 'Max' },
    { id: -1n, name: 'Fern', tag: 'green' },
  ]);
  t.throws(() => parsePlantListings('{"id":1,"name":"x"}'), { name: 'TypeError', message: /not a JSON array/ });
  for (const item of [
    '{"name":"x"}',
    '{"id":1.5,"name":"x"}',
    '{"id":"1","name":"x"}',
    '{"id":1}',
    '{"id":1,"name":"x","tag":null}',
    '7',
  ]) {
    t.throws(() => parsePlantListings(`[{"id":0,"name":"ok"},${item}]`), { name: 'TypeError', message: /^Item 1 of the listing/ }, item);
  }
});

t.test('a refusal says where the text stops being JSON, in the words the service and the mock both answer with', async (t) => {
  t.throws(() => parseExactJson('{"id":2,'), { name: 'SyntaxError', message: 'the text ends early, at position 8' });
  t.throws(() => parseExactJson('{"id":2,  x'), { message: 'unexpected character "x" at position 10' });
  t.throws(() => parseExactJson('\uFEFF{}'), { message: 'unexpected character U+FEFF at position 0' });
  t.throws(() => parseExactJson('{"a":1,"a":2}', { refuseDifferentDuplicateKeys: true }), {
    message: 'the key "a" appears twice with different values',
  });
  t.throws(() => parseExactJson('['.repeat(200_000)), { name: 'SyntaxError', message: 'it is nested too deeply' });
});

t.test('each number is read from its text as the service reads bodies: integers digit for digit, the rest as numbers', async (t) => {
  const parsed = parseExactJson('{"a":1,"b":[-0,1.50,2e3,9223372036854775807]}', { negativeZeroIsNumber: true }) as {
    a: unknown;
    b: unknown[];
  };
  t.equal(parsed.a, 1n);
  t.ok(Object.is(parsed.b[0], -0), '-0 is the number -0');
  t.same(parsed.b.slice(1), [1.5, 2000, 9223372036854775807n], 'a fraction or exponent is a number; an integer is exact');
});

t.test('read as the service reads request bodies: different duplicate keys refused, -0 a number', async (t) => {
  const strict = { refuseDifferentDuplicateKeys: true, negativeZeroIsNumber: true };
  t.throws(() => parseExactJson('{"name":"x","name":"y"}', strict), SyntaxError);
  t.same(parseExactJson('{"a":{"b":1,"c":[2]},"a":{"c":[2],"b":1}}', strict), { a: { b: 1n, c: [2n] } }, 'the same value twice is allowed');
  t.ok(Object.is(parseExactJson('-0', strict), -0), '-0 is the number -0');
  t.same(parseExactJson('{"name":"x","name":"y"}'), { name: 'y' }, 'without the options, the last value wins, as in JSON.parse');
});
