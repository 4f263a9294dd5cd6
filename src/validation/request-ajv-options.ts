// Ajv's options for requests, with no import of their own: the server (ajv-options.ts) and the mock of
// @plant-store/client (which copies this file and exact-integer.ts at build) validate alike.
export const REQUEST_AJV_OPTIONS = {
  strict: true,
  removeAdditional: false,
  coerceTypes: false,
  useDefaults: true,
  allErrors: false,
} as const;
