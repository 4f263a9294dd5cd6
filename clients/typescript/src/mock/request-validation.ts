// The mock's request validation: Ajv compiled from the schemas scripts/generate.ts made from openapi.yaml, with the
// server's own Ajv options and `exactInteger` keyword (src/validation/, copied in at build with the schemas).
import { Ajv, type ValidateFunction } from 'ajv';
import { describeValidation } from '../generated/error-messages.js';
import { exactIntegerKeyword } from '../generated/exact-integer.js';
import { REQUEST_AJV_OPTIONS } from '../generated/ajv-options.js';
import { componentSchemas, operations } from '../generated/schemas.js';

export interface RequestValidators {
  listQuery: ValidateFunction;
  newPlant: ValidateFunction;
  deleteParams: ValidateFunction;
}

let compiled: RequestValidators | undefined;

/** Compiled once, on first use: strict, no coercion, nothing removed, defaults filled in (as the server's Ajv). */
export function requestValidators(): RequestValidators {
  if (compiled !== undefined) return compiled;
  const ajv = exactIntegerKeyword(new Ajv({ ...REQUEST_AJV_OPTIONS }));
  for (const schema of componentSchemas) ajv.addSchema(schema);
  compiled = {
    listQuery: ajv.compile(operations.listPlants.schema.querystring),
    newPlant: ajv.compile(operations.addPlant.schema.body),
    deleteParams: ajv.compile(operations.deletePlant.schema.params),
  };
  return compiled;
}

/** The first problem as a sentence that names where it is: the service's own wording (error-messages.ts). */
export function describe(where: 'body' | 'querystring' | 'params', validate: ValidateFunction): string {
  const issue = validate.errors?.[0];
  return issue === undefined ? `${where} is not valid.` : describeValidation(where, issue);
}
