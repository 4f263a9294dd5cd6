// The lifetimes `token create` accepts: the duration grammar, RFC 3339 times, and every refusal naming its option.
import t from 'tap';
import { expiryFromOptions, MAX_LIFETIME_MS, parseLifetime } from '../../src/cli/token-expiry.js';
import { UsageError } from '../../src/cli/usage-error.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const NOW = Date.UTC(2030, 0, 15, 12, 0, 0);

/** What `refuse` throws: a UsageError (the CLI's exit 2), with its message. */
function refusal(refuse: () => unknown): { usageError: boolean; message: string } {
  try {
    refuse();
  } catch (error) {
    return { usageError: error instanceof UsageError, message: (error as Error).message };
  }
  return { usageError: false, message: 'nothing was thrown' };
}

t.test('durations: a whole number and one unit, m being minutes', async (t) => {
  const cases: Array<[string, number]> = [
    ['1m', MINUTE],
    ['90m', 90 * MINUTE],
    ['12h', 12 * 60 * MINUTE],
    ['30d', 30 * DAY],
    ['2w', 14 * DAY],
    ['1y', 365 * DAY],
    ['5y', 5 * 365 * DAY],
    ['007d', 7 * DAY],
    ['1825d', MAX_LIFETIME_MS],
  ];
  for (const [text, ms] of cases) t.equal(parseLifetime(text), ms, text);
});

t.test('bad durations are refused with a message that names --expires-in', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['30', /not a duration/],
    ['d', /not a duration/],
    ['30D', /not a duration/],
    ['30 d', /not a duration/],
    [' 30d', /not a duration/],
    ['30days', /not a duration/],
    ['1.5h', /not a duration/],
    ['-1d', /not a duration/],
    ['+1d', /not a duration/],
    ['1e3m', /not a duration/],
    ['30s', /not a duration/],
    ['1mo', /not a duration/],
    ['1d12h', /not a duration/],
    ['', /not a duration/],
    ['0m', /no lifetime: a token lives at least 1m/],
    ['0d', /no lifetime/],
    ['6y', /too long: at most 5y/],
    ['1826d', /too long/],
    ['99999999d', /not a duration/],
  ];
  for (const [text, message] of cases) {
    const refused = refusal(() => parseLifetime(text));
    t.ok(refused.usageError, `${JSON.stringify(text)} is refused`);
    t.match(refused.message, /^--expires-in /, `${JSON.stringify(text)}: the message names the option`);
    t.match(refused.message, message, `${JSON.stringify(text)}: ${refused.message}`);
  }
});

t.test('the expiry of a token made now: never, now plus the duration, or the time given', async (t) => {
  t.equal(expiryFromOptions({}, NOW), null, 'no option: it never expires, as before');
  t.same(expiryFromOptions({ 'expires-in': '30d' }, NOW), new Date(NOW + 30 * DAY));
  t.same(expiryFromOptions({ 'expires-at': '2030-02-01T00:00:00Z' }, NOW), new Date(Date.UTC(2030, 1, 1)));
  t.same(
    expiryFromOptions({ 'expires-at': '2030-02-01T01:30+01:00' }, NOW),
    new Date(Date.UTC(2030, 1, 1, 0, 30)),
    'an offset is honoured',
  );
  t.same(
    expiryFromOptions({ 'expires-at': '2030-02-01t00:00:00.250z' }, NOW),
    new Date(Date.UTC(2030, 1, 1, 0, 0, 0, 250)),
    'RFC 3339 allows lower-case t and z',
  );
  t.same(expiryFromOptions({ 'expires-at': '2032-02-29T00:00Z' }, NOW), new Date(Date.UTC(2032, 1, 29)), 'a leap day');
  t.same(
    expiryFromOptions({ 'expires-at': '2030-02-01T00:00:00.123456789Z' }, NOW),
    new Date(Date.UTC(2030, 1, 1, 0, 0, 0, 123)),
    'any number of fraction digits (as `date --rfc-3339=ns` prints), kept to the millisecond',
  );
});

t.test('bad times are refused with a message that names the option', async (t) => {
  const cases: Array<[Parameters<typeof expiryFromOptions>[0], RegExp]> = [
    [{ 'expires-in': '1d', 'expires-at': '2030-02-01T00:00Z' }, /^give --expires-in or --expires-at, not both$/],
    [{ 'expires-at': '2030-02-01' }, /^--expires-at "2030-02-01" is not a date and time with a zone/],
    [{ 'expires-at': '2030-02-01T00:00' }, /^--expires-at .* is not a date and time with a zone/],
    [{ 'expires-at': '2030-02-30T00:00Z' }, /^--expires-at .* is not a date/],
    [{ 'expires-at': '2031-02-29T00:00Z' }, /^--expires-at .* is not a date/],
    [{ 'expires-at': '2030-13-01T00:00Z' }, /^--expires-at .* is not a date/],
    [{ 'expires-at': '2030-02-01T24:00Z' }, /^--expires-at .* is not a date/],
    [{ 'expires-at': '2030-02-01T23:60Z' }, /^--expires-at .* is not a date/],
    [{ 'expires-at': '2030-02-01T00:00+25:00' }, /^--expires-at .* is not a date/],
    [{ 'expires-at': 'tomorrow' }, /^--expires-at .* is not a date/],
    [{ 'expires-at': '1893456000000' }, /^--expires-at .* is not a date/],
    [{ 'expires-at': '2030-01-15T12:00Z' }, /^--expires-at .* has already passed$/],
    [{ 'expires-at': '2020-01-01T00:00Z' }, /has already passed/],
    [{ 'expires-at': '2035-01-15T12:01Z' }, /^--expires-at .* is too far ahead: at most 5y from now/],
  ];
  for (const [options, message] of cases) {
    const refused = refusal(() => expiryFromOptions(options, NOW));
    t.ok(refused.usageError, `${JSON.stringify(options)} is refused`);
    t.match(refused.message, message, `${JSON.stringify(options)}: ${refused.message}`);
  }
  t.same(expiryFromOptions({ 'expires-at': '2030-01-15T12:01Z' }, NOW), new Date(NOW + MINUTE), 'a minute ahead is fine');
});
