// How Fastify's Ajv validates requests: strict schemas, no coercion, no silent removal.
import type { FastifyServerOptions } from 'fastify';
import { exactIntegerKeyword } from './exact-integer.js';
import { REQUEST_AJV_OPTIONS } from './request-ajv-options.js';

export const ajvOptions: NonNullable<FastifyServerOptions['ajv']> = {
  // strict: a keyword Ajv does not know is an error, so the generator must strip OpenAPI-only ones.
  customOptions: { ...REQUEST_AJV_OPTIONS },
  plugins: [exactIntegerKeyword],
};
