// The one decimal-integer rule and the int64 bounds that query, path, cursor, CLI and configuration values share.
import t from 'tap';
import { INTEGER_RANGES, isDecimalInteger, parseDecimalInteger } from '../../src/validation/exact-integer.js';

t.test('decimal integers are written as JSON writes them', async (t) => {
  for (const text of ['0', '7', '-1', '10', '9223372036854775807', '-9223372036854775808', '1'.repeat(30)])
    t.ok(isDecimalInteger(text), text);
  for (const text of ['', '-', '-0', '+1', '01', '-01', '1.0', '1e3', ' 1', '1 ', '0x1', '１', '٣'])
    t.notOk(isDecimalInteger(text), JSON.stringify(text));
});

t.test('parsed exactly, within int64 unless narrower bounds are given', async (t) => {
  t.equal(parseDecimalInteger('9223372036854775807'), 9223372036854775807n);
  t.equal(parseDecimalInteger('9223372036854775806'), 9223372036854775806n, 'beyond 2^53, still exact');
  t.equal(parseDecimalInteger('-9223372036854775808'), INTEGER_RANGES.int64.min);
  t.equal(parseDecimalInteger('9223372036854775808'), undefined);
  t.equal(parseDecimalInteger('-9223372036854775809'), undefined);
  t.equal(parseDecimalInteger('9'.repeat(5000)), undefined, 'long text is refused without reading it');
  t.equal(parseDecimalInteger('-0'), undefined);
  t.equal(parseDecimalInteger('5', 1n, 5n), 5n);
  t.equal(parseDecimalInteger('0', 1n, 5n), undefined);
  t.equal(parseDecimalInteger('6', 1n, 5n), undefined);
  t.same(INTEGER_RANGES.int32, { min: -2147483648n, max: 2147483647n });
});
