// Every message the service shows a client, written once: src/errors.ts, the error handler and the client's mock (a copy made at its build) read them here.
// No imports: clients/typescript's build copies this file as it is, so the mock answers in the service's words.

/** Templates for @fastify/error: each %s is filled in order (fill() below does the same for the mock). */
export const MESSAGES = {
  invalidCursor: 'The cursor is not one this service issued; start again from the first page, without cursor.',
  invalidJson: 'The body is not valid JSON: %s',
  invalidUtf8: 'The body is not valid UTF-8; JSON must be sent as UTF-8 (RFC 8259), so convert the text before sending it.',
  unsupportedCharset: 'Send the JSON body in UTF-8 (charset=utf-8, or no charset at all), not charset=%s.',
  unsupportedContentEncoding:
    'The body has Content-Encoding: %s, which this service does not decode; send it uncompressed, without Content-Encoding.',
  unsupportedTransferCoding:
    'The body has Transfer-Encoding: %s, which this service does not decode (RFC 9112, 6.1); send it with chunked alone, or with Content-Length.',
  missingHost: 'The request has no Host header, which HTTP/1.1 requires (RFC 9112, section 3.2); send one.',
  duplicateHost: 'The request has more than one Host header, which HTTP/1.1 forbids (RFC 9112, section 3.2); send exactly one.',
  duplicateAuthorization: 'The request has more than one Authorization header; send exactly one.',
  unsupportedExpectation: 'The Expect header "%s" is not supported; send the request without it, or with Expect: 100-continue.',
  conflict: 'A plant with id %s already exists with a different name or tag; delete it first or use another id.',
  notFound: 'You have no plant with id %s.',
  missingToken: 'This request needs a bearer token: send the header "Authorization: Bearer <token>".',
  invalidToken: 'The bearer token is not valid; it may have expired or been revoked. Ask for a new one.',
  invalidAccessToken: 'The access token is not valid or has expired; sign in again to get a new one.',
  providerUnavailable: 'The identity provider cannot be reached to check the access token; nothing was changed. Retry in %s.',
  tooManyAuthFailures: 'Too many failed authentications from your address; retry in %s.',
  tooManyRequests: 'Too many requests for this token; retry in %s.',
  databaseUnavailable: 'The database is not reachable; try again shortly.',
  notReadyDiskFull: "The database's disk is full: writes are refused until there is room again; reads still work.",
  notReadyDamaged: 'The database file is damaged: writes are refused; the operators are told.',
  notReadyFileGone:
    'The database file was deleted or replaced while in use: writes are refused until Plant Store is restarted; the operators are told.',
  databaseBusy: 'Another process is writing to the database; nothing was changed. Retry in %s.',
  diskFull: "The database's disk is full; nothing was changed. Reads still work. Retry in %s.",
  databaseDamaged: 'The database file is damaged; nothing was changed and the operators are told. Retry in %s.',
  databaseFileGone: 'The database file was deleted or replaced while in use; nothing was changed and the operators are told. Retry in %s.',
  overloaded: 'The service is overloaded and did not handle this request; nothing was changed. Retry in %s.',
  /** InvalidJson's reason for a body with nothing in it (the parser gives the others: src/validation/parse-exact-json.ts). */
  emptyJsonReason: 'it is empty; send a JSON object',
  /** Fastify's own refusals, reworded by the error handler. */
  noContentType: 'Send the body as application/json, and say so in Content-Type.',
  notJsonContentType: 'Send the body as application/json, not %s.',
  bodyTooLarge: 'The request body is larger than %s bytes.',
  emptyBody: 'The body is empty; send a JSON object.',
  contentLengthMismatch: 'The Content-Length header does not match the body.',
  /** No route: a path with other methods (405), or none at all (404). */
  methodNotAllowed: '%s is not allowed on %s; use %s.',
  nothingAt: 'There is nothing at %s %s; see /docs for the API.',
} as const;

/** A template with each %s replaced, in order, by a value: as @fastify/error (util.format) writes a string or number. */
export function fill(template: string, ...values: Array<string | number | bigint>): string {
  let index = 0;
  return template.replace(/%s/g, () => String(values[index++]));
}

/** A value shown in a message, cut to `length` characters: a client may send a very long one. */
export const clip = (text: string, length = 60) => (text.length > length ? `${text.slice(0, length)}...` : text);

/** The 405 for a path served with other methods, or the 404 for a path nothing serves. */
export const methodNotAllowed = (method: string, path: string, allowed: readonly string[]) =>
  fill(MESSAGES.methodNotAllowed, method, clip(path), allowed.join(' or '));
export const nothingAt = (method: string, path: string) => fill(MESSAGES.nothingAt, method, clip(path));

/** One problem Ajv found with a request (its ErrorObject, the fields read here). */
export interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The first problem with a request's body, query or path, as a sentence that names where it is. */
export function describeValidation(context: string | undefined, issue: ValidationIssue): string {
  const where = (context ?? 'request') + issue.instancePath.replace(/\//g, '.');
  if (issue.keyword === 'additionalProperties')
    return `${where} has an unknown property "${String(issue.params.additionalProperty)}"; remove it.`;
  if (issue.keyword === 'required') return `${where} is missing the required property "${String(issue.params.missingProperty)}".`;
  if (issue.keyword === 'pattern' && context === 'body') return `${where} must not contain control characters or unpaired surrogates.`;
  // A query value is a string unless the parameter is repeated: then the parser makes it an array.
  if (issue.keyword === 'type' && context === 'querystring' && issue.params.type === 'string')
    return `${where} is given more than once; give it once.`;
  return `${where} ${issue.message ?? 'is not valid'}.`;
}
