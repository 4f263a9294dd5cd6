// Exact int64 ids for the Express peer: a JSON body's id read by lossless-json (JSON.parse would round
// it beyond 2^53), decimal texts (path ids, cursors) by BigInt; both checked against the int64 range.
import { isLosslessNumber, parse } from 'lossless-json';

const DECIMAL = /^-?(?:0|[1-9]\d*)$/;
const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;

/** The int64 a decimal text stands for; undefined for anything else (fractions, exponents, -0, out of range). */
export function int64(text: string): bigint | undefined {
  if (!DECIMAL.test(text) || text === '-0') return undefined;
  const value = BigInt(text);
  return value < MIN || value > MAX ? undefined : value;
}

/** The `id` of a JSON object body, exactly; undefined when it is missing or not an int64 written as an integer. */
export function bodyId(json: string): bigint | undefined {
  let body: unknown;
  try {
    body = parse(json);
  } catch {
    return undefined; // e.g. a key twice with different values, which JSON.parse lets pass
  }
  const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
  return isLosslessNumber(id) ? int64(id.value) : undefined;
}
