// Integers as the service reads them, written once: decimal text as JSON writes integers, the int32/int64
// ranges, and the Ajv keyword `exactInteger`, which the generator puts where openapi.yaml says
// `type: integer` in a request, so int64 values are checked (and handed on) exactly, as bigint.
import type { Ajv } from 'ajv';
import type { DataValidateFunction, DataValidationCxt } from 'ajv/dist/types/index.js';

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

interface Rule {
  format: 'int32' | 'int64';
  /** Query and path values arrive as text; JSON bodies never may. */
  text: boolean;
  minimum?: number;
  maximum?: number;
}

function toBigint(data: unknown, text: boolean): bigint | undefined {
  if (typeof data === 'bigint') return data;
  // A JSON body's integers arrive as bigint (parse-exact-json.ts): a number there was written with a fraction,
  // an exponent or as -0. In a query or path, a number is the schema's default.
  if (typeof data === 'number') return text && Number.isSafeInteger(data) ? BigInt(data) : undefined;
  // Text beyond int64 is refused here; the rule's own bounds are checked by the caller.
  if (text && typeof data === 'string') return parseDecimalInteger(data);
  return undefined;
}

export function exactIntegerKeyword(ajv: Ajv): Ajv {
  ajv.addKeyword({
    keyword: 'exactInteger',
    modifying: true,
    errors: true,
    schemaType: 'object',
    // Bounds are worked out once per schema, not on every request.
    compile(rule: Rule) {
      const range = INTEGER_RANGES[rule.format];
      const min = rule.minimum === undefined ? range.min : BigInt(rule.minimum);
      const max = rule.maximum === undefined ? range.max : BigInt(rule.maximum);
      // -0 is named only where it looks in range: it is refused as not written as an integer is.
      const signed = min < 0n;
      const written = rule.text
        ? `a decimal integer${signed ? ' (not -0)' : ''}`
        : `a JSON integer (no fraction, exponent${signed ? ', quotes or -0' : ' or quotes'})`;
      const validate: DataValidateFunction = (data: unknown, context?: DataValidationCxt) => {
        const value = toBigint(data, rule.text);
        if (value === undefined || value < min || value > max) {
          validate.errors = [
            {
              keyword: 'exactInteger',
              instancePath: context?.instancePath ?? '',
              schemaPath: '#/exactInteger',
              params: { min, max },
              message: `must be ${written} from ${min} to ${max}`,
            },
          ];
          return false;
        }
        if (context?.parentData !== undefined) {
          (context.parentData as Record<string | number, unknown>)[context.parentDataProperty] =
            rule.format === 'int64' ? value : Number(value);
        }
        return true;
      };
      return validate;
    },
  });
  return ajv;
}
