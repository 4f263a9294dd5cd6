// The mock's request validation: Ajv compiled from the schemas scripts/generate.ts made from openapi.yaml (copied in at build), with the server's Ajv options.
import { Ajv, type ValidateFunction } from 'ajv';
import type { DataValidateFunction, DataValidationCxt } from 'ajv/dist/types/index.js';
import { componentSchemas, operations } from '../generated/schemas.js';

/** The generator's `exactInteger` keyword, as its schema states it: an integer of a format, as text (query, path) or as a JSON integer (body). */
interface ExactIntegerRule {
  format: 'int32' | 'int64';
  text: boolean;
  minimum?: number;
  maximum?: number;
}

/** JSON's integer grammar, without "-0", at most a sign and 19 digits: what `text` integers are written as. */
const DECIMAL = /^-?(?:0|[1-9][0-9]{0,18})$/;

/** A query or path value; or the schema's `default`, which Ajv fills in as a number. */
function fromText(data: unknown): bigint | undefined {
  if (typeof data === 'string') return DECIMAL.test(data) && data !== '-0' ? BigInt(data) : undefined;
  return typeof data === 'number' && Number.isSafeInteger(data) ? BigInt(data) : undefined;
}

/**
 * The keyword's meaning, not a rule of its own: the bounds, the format and where the value is written all come from the
 * generated schema. Body integers arrive as bigint from the exact parser (a fraction or exponent arrives as a number and is
 * refused, so 1.0 and 1e3 are not ids); a valid value is handed on as the bigint (int64) or number (int32) it spells.
 */
function exactInteger(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'exactInteger',
    modifying: true,
    errors: true,
    schemaType: 'object',
    compile(rule: ExactIntegerRule) {
      const bits = rule.format === 'int32' ? 31n : 63n;
      const min = rule.minimum === undefined ? -(2n ** bits) : BigInt(rule.minimum);
      const max = rule.maximum === undefined ? 2n ** bits - 1n : BigInt(rule.maximum);
      const written = rule.text ? 'a decimal integer' : 'a JSON integer (no fraction, exponent or quotes)';
      const validate: DataValidateFunction = (data: unknown, context?: DataValidationCxt) => {
        const value = rule.text ? fromText(data) : typeof data === 'bigint' ? data : undefined;
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
}

export interface RequestValidators {
  listQuery: ValidateFunction;
  newPlant: ValidateFunction;
  deleteParams: ValidateFunction;
}

let compiled: RequestValidators | undefined;

/** Compiled once, on first use: strict, no coercion, nothing removed, defaults filled in (as the server's Ajv). */
export function requestValidators(): RequestValidators {
  if (compiled !== undefined) return compiled;
  const ajv = new Ajv({ strict: true, removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false });
  exactInteger(ajv);
  for (const schema of componentSchemas) ajv.addSchema(schema);
  compiled = {
    listQuery: ajv.compile(operations.listPlants.schema.querystring),
    newPlant: ajv.compile(operations.addPlant.schema.body),
    deleteParams: ajv.compile(operations.deletePlant.schema.params),
  };
  return compiled;
}

/** The first problem as a sentence that names where it is, worded as the service words it. */
export function describe(where: 'body' | 'querystring' | 'params', validate: ValidateFunction): string {
  const issue = validate.errors?.[0];
  if (issue === undefined) return `${where} is not valid.`;
  const at = where + issue.instancePath.replace(/\//g, '.');
  if (issue.keyword === 'additionalProperties')
    return `${at} has an unknown property "${String(issue.params.additionalProperty)}"; remove it.`;
  if (issue.keyword === 'required') return `${at} is missing the required property "${String(issue.params.missingProperty)}".`;
  if (issue.keyword === 'pattern' && where === 'body') return `${at} must not contain control characters or unpaired surrogates.`;
  return `${at} ${issue.message ?? 'is not valid'}.`;
}
