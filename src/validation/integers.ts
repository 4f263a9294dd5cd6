// Integers as the service reads them, written once: decimal text as JSON writes integers, and the int32/int64 ranges.

export const INTEGER_RANGES = {
  int32: { min: -(2n ** 31n), max: 2n ** 31n - 1n },
  int64: { min: -(2n ** 63n), max: 2n ** 63n - 1n },
} as const;

const DECIMAL = /^-?(?:0|[1-9]\d*)$/;
/** The longest decimal text inside int64: a sign and 19 digits. Longer text is refused before BigInt has to read it. */
const INT64_DIGITS = 20;

/** Digits with an optional leading '-': no '+', no leading zero, no '-0', no fraction or exponent. */
export function isDecimalInteger(text: string): boolean {
  return DECIMAL.test(text) && text !== '-0';
}

/** `text` as an exact integer when it is a decimal integer from `min` to `max` (the int64 range by default); else undefined. */
export function parseDecimalInteger(
  text: string,
  min: bigint = INTEGER_RANGES.int64.min,
  max: bigint = INTEGER_RANGES.int64.max,
): bigint | undefined {
  if (text.length > INT64_DIGITS || !isDecimalInteger(text)) return undefined;
  const value = BigInt(text);
  return value < min || value > max ? undefined : value;
}
