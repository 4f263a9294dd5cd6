// When a new token expires, from the CLI's `--expires-in <duration>` or `--expires-at <time>`; no option: never.
import { UsageError } from './usage-error.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** `m` is minutes, never months: a month has no fixed length. */
const UNITS: Record<string, number> = { m: MINUTE, h: 60 * MINUTE, d: DAY, w: 7 * DAY, y: 365 * DAY };
/** A whole number (no sign, no fraction) and one unit. */
const DURATION = /^([0-9]{1,7})([mhdwy])$/;
/** RFC 3339: a date, a time to the minute or finer (a fraction kept to the millisecond), an explicit zone: no local time guessed. */
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)$/i;

/** The longest lifetime: beyond it a token is as good as one that never expires, which is what leaving the option out gives. */
export const MAX_LIFETIME_MS = 5 * UNITS.y!;
const MAX_TEXT = '5y';
const DURATION_HELP = 'a whole number and a unit: m (minutes), h (hours), d (days), w (weeks) or y (365 days), e.g. 90m, 12h, 30d, 1y';

/** Milliseconds in `text` (`30d`), from 1 minute to 5 years. */
export function parseLifetime(text: string): number {
  const match = DURATION.exec(text);
  if (match === null) throw new UsageError(`--expires-in "${text}" is not a duration: use ${DURATION_HELP}`);
  const ms = Number(match[1]) * UNITS[match[2]!]!;
  if (ms === 0) throw new UsageError(`--expires-in ${text} is no lifetime: a token lives at least 1m`);
  if (ms > MAX_LIFETIME_MS)
    throw new UsageError(`--expires-in ${text} is too long: at most ${MAX_TEXT}; leave --expires-in out for a token that never expires`);
  return ms;
}

/** The instant `text` names, when it is a real RFC 3339 date-time (no 30 February), else undefined. */
function parseDateTime(text: string): number | undefined {
  const match = DATE_TIME.exec(text);
  if (match === null) return undefined;
  // Date.parse would roll 2025-02-30 over into March: the date and clock, read as UTC, must come back unchanged.
  const fields = `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6] ?? '00'}`;
  const utc = Date.parse(`${fields}Z`);
  if (Number.isNaN(utc) || new Date(utc).toISOString().slice(0, 19) !== fields) return undefined;
  const at = Date.parse(text.toUpperCase());
  return Number.isNaN(at) ? undefined : at;
}

/** When a token made now expires: null for never (neither option). Throws a UsageError naming the option for a bad value. */
export function expiryFromOptions(options: { 'expires-in'?: string; 'expires-at'?: string }, now = Date.now()): Date | null {
  const { 'expires-in': expiresIn, 'expires-at': expiresAt } = options;
  if (expiresIn !== undefined && expiresAt !== undefined) throw new UsageError('give --expires-in or --expires-at, not both');
  if (expiresIn !== undefined) return new Date(now + parseLifetime(expiresIn));
  if (expiresAt === undefined) return null;
  const at = parseDateTime(expiresAt);
  if (at === undefined)
    throw new UsageError(`--expires-at "${expiresAt}" is not a date and time with a zone (RFC 3339): use e.g. 2030-12-31T23:59:00Z`);
  if (at <= now) throw new UsageError(`--expires-at ${expiresAt} has already passed`);
  if (at - now > MAX_LIFETIME_MS)
    throw new UsageError(
      `--expires-at ${expiresAt} is too far ahead: at most ${MAX_TEXT} from now; leave --expires-at out for a token that never expires`,
    );
  return new Date(at);
}
