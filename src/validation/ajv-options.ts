// How Ajv validates requests, the server's and the client's mock's alike (the client's build copies this
// file): strict schemas, no coercion, no silent removal.
import { exactIntegerKeyword } from './exact-integer.js';

export const REQUEST_AJV_OPTIONS = {
  // strict: a keyword Ajv does not know is an error, so the generator must strip OpenAPI-only ones.
  strict: true,
  removeAdditional: false,
  coerceTypes: false,
  useDefaults: true,
  allErrors: false,
} as const;

/** Fastify's `ajv` option. */
export const ajvOptions = { customOptions: { ...REQUEST_AJV_OPTIONS }, plugins: [exactIntegerKeyword] };
