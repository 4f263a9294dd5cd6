// Every error the service raises on purpose, named once. Messages are shown to clients.
import createError from '@fastify/error';

export const InvalidCursor = createError(
  'PLANT_STORE_INVALID_CURSOR',
  'The cursor is not one this service issued; start again from the first page, without cursor.',
  400,
);
export const InvalidJson = createError('PLANT_STORE_INVALID_JSON', 'The body is not valid JSON: %s', 400);
export const InvalidUtf8 = createError(
  'PLANT_STORE_INVALID_UTF8',
  'The body is not valid UTF-8; JSON must be sent as UTF-8 (RFC 8259), so convert the text before sending it.',
  400,
);
export const UnsupportedCharset = createError(
  'PLANT_STORE_UNSUPPORTED_CHARSET',
  'Send the JSON body in UTF-8 (charset=utf-8, or no charset at all), not charset=%s.',
  415,
);
export const UnsupportedContentEncoding = createError(
  'PLANT_STORE_UNSUPPORTED_CONTENT_ENCODING',
  'The body has Content-Encoding: %s, which this service does not decode; send it uncompressed, without Content-Encoding.',
  415,
);
export const UnsupportedTransferCoding = createError(
  'PLANT_STORE_UNSUPPORTED_TRANSFER_CODING',
  'The body has Transfer-Encoding: %s, which this service does not decode (RFC 9112, 6.1); send it with chunked alone, or with Content-Length.',
  501,
);
export const MissingHost = createError(
  'PLANT_STORE_MISSING_HOST',
  'The request has no Host header, which HTTP/1.1 requires (RFC 9112, section 3.2); send one.',
  400,
);
export const DuplicateHost = createError(
  'PLANT_STORE_DUPLICATE_HOST',
  'The request has more than one Host header, which HTTP/1.1 forbids (RFC 9112, section 3.2); send exactly one.',
  400,
);
export const DuplicateAuthorization = createError(
  'PLANT_STORE_DUPLICATE_AUTHORIZATION',
  'The request has more than one Authorization header; send exactly one.',
  400,
);
export const UnsupportedExpectation = createError(
  'PLANT_STORE_UNSUPPORTED_EXPECTATION',
  'The Expect header "%s" is not supported; send the request without it, or with Expect: 100-continue.',
  417,
);
export const PlantConflict = createError(
  'PLANT_STORE_CONFLICT',
  'A plant with id %s already exists with a different name or tag; delete it first or use another id.',
  409,
);
export const PlantNotFound = createError('PLANT_STORE_NOT_FOUND', 'You have no plant with id %s.', 404);
export const MissingToken = createError(
  'PLANT_STORE_MISSING_TOKEN',
  'This request needs a bearer token: send the header "Authorization: Bearer <token>".',
  401,
);
export const InvalidToken = createError(
  'PLANT_STORE_INVALID_TOKEN',
  'The bearer token is not valid; it may have expired or been revoked. Ask for a new one.',
  401,
);
export const InvalidAccessToken = createError(
  'PLANT_STORE_INVALID_ACCESS_TOKEN',
  'The access token is not valid or has expired; sign in again to get a new one.',
  401,
);
export const ProviderUnavailable = createError(
  'PLANT_STORE_PROVIDER_UNAVAILABLE',
  'The identity provider cannot be reached to check the access token; nothing was changed. Retry in %s.',
  503,
);
export const TooManyAuthFailures = createError(
  'PLANT_STORE_AUTH_FAILURES',
  'Too many failed authentications from your address; retry in %s.',
  429,
);
export const TooManyRequests = createError('PLANT_STORE_RATE_LIMITED', 'Too many requests for this token; retry in %s.', 429);
export const DatabaseUnavailable = createError(
  'PLANT_STORE_DATABASE_UNAVAILABLE',
  'The database is not reachable; try again shortly.',
  503,
);
// /readyz's answers when the database answers but cannot take writes: each says why (the log says more, with the file).
export const NotReadyDiskFull = createError(
  'PLANT_STORE_NOT_READY_DISK_FULL',
  "The database's disk is full: writes are refused until there is room again; reads still work.",
  503,
);
export const NotReadyDamaged = createError(
  'PLANT_STORE_NOT_READY_DAMAGED',
  'The database file is damaged: writes are refused; the operators are told.',
  503,
);
export const NotReadyFileGone = createError(
  'PLANT_STORE_NOT_READY_FILE_GONE',
  'The database file was deleted or replaced while in use: writes are refused until Plant Store is restarted; the operators are told.',
  503,
);
export const DatabaseBusy = createError(
  'PLANT_STORE_DATABASE_BUSY',
  'Another process is writing to the database; nothing was changed. Retry in %s.',
  503,
);
export const DiskFull = createError(
  'PLANT_STORE_DISK_FULL',
  "The database's disk is full; nothing was changed. Reads still work. Retry in %s.",
  503,
);
export const DatabaseDamaged = createError(
  'PLANT_STORE_DATABASE_DAMAGED',
  'The database file is damaged; nothing was changed and the operators are told. Retry in %s.',
  503,
);
export const DatabaseFileGone = createError(
  'PLANT_STORE_DATABASE_FILE_GONE',
  'The database file was deleted or replaced while in use; nothing was changed and the operators are told. Retry in %s.',
  503,
);
export const Overloaded = createError(
  'PLANT_STORE_OVERLOADED',
  'The service is overloaded and did not handle this request; nothing was changed. Retry in %s.',
  503,
);

/** A wait as the messages above say it: "1 second", "30 seconds". */
export const inSeconds = (seconds: number) => (seconds === 1 ? '1 second' : `${seconds} seconds`);

/** An error that says when to try again; the error handler sends `retryAfter` as the Retry-After header. */
export function retryLater<E extends Error>(error: E, seconds: number): E & { retryAfter: number } {
  return Object.assign(error, { retryAfter: seconds });
}

/** Errors whose message may be shown even when their status is 5xx. */
export function isPublicError(error: { code?: string }): boolean {
  return typeof error.code === 'string' && error.code.startsWith('PLANT_STORE_');
}
