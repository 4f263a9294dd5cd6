// JSON text for request bodies that keeps int64 ids exact: a bigint is written as its bare digits.

/**
 * JSON.stringify cannot write a bigint, and a number beyond 2^53 has already been rounded
 * before it gets here; so bigints are written digit for digit, and such numbers are refused
 * rather than silently sent as a different id.
 */
export function stringifyExact(value: unknown): string {
  const text = write(value, '');
  if (text === undefined) throw new TypeError('The request body cannot be written as JSON.');
  return text;
}

/** Throws for an integer number that is no longer exact (beyond 2^53 - 1). */
export function assertExactNumber(value: unknown): void {
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new RangeError(
      `${value} is beyond 2^53 and has already been rounded; pass ids this large as a bigint (e.g. 9223372036854775807n).`,
    );
  }
}

function write(input: unknown, key: string): string | undefined {
  let value = input;
  // Same order as JSON.stringify: toJSON first (Date and friends), then the value it returns.
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (typeof value === 'bigint') return value.toString();
  assertExactNumber(value);
  if (Array.isArray(value)) return `[${value.map((item, index) => write(item, String(index)) ?? 'null').join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members: string[] = [];
    for (const [name, member] of Object.entries(value)) {
      const text = write(member, name);
      if (text !== undefined) members.push(`${JSON.stringify(name)}:${text}`);
    }
    return `{${members.join(',')}}`;
  }
  // Strings, finite numbers, booleans and null as JSON.stringify writes them; undefined and functions are left out.
  return JSON.stringify(value);
}
