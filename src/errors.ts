// Every error the service raises on purpose, named once. Their messages, shown to clients, are in error-messages.ts.
import createError from '@fastify/error';
import { MESSAGES } from './error-messages.js';

export const InvalidCursor = createError('PLANT_STORE_INVALID_CURSOR', MESSAGES.invalidCursor, 400);
export const InvalidJson = createError('PLANT_STORE_INVALID_JSON', MESSAGES.invalidJson, 400);
export const InvalidUtf8 = createError('PLANT_STORE_INVALID_UTF8', MESSAGES.invalidUtf8, 400);
export const UnsupportedCharset = createError('PLANT_STORE_UNSUPPORTED_CHARSET', MESSAGES.unsupportedCharset, 415);
export const UnsupportedContentEncoding = createError('PLANT_STORE_UNSUPPORTED_CONTENT_ENCODING', MESSAGES.unsupportedContentEncoding, 415);
export const UnsupportedTransferCoding = createError('PLANT_STORE_UNSUPPORTED_TRANSFER_CODING', MESSAGES.unsupportedTransferCoding, 501);
export const MissingHost = createError('PLANT_STORE_MISSING_HOST', MESSAGES.missingHost, 400);
export const DuplicateHost = createError('PLANT_STORE_DUPLICATE_HOST', MESSAGES.duplicateHost, 400);
export const DuplicateAuthorization = createError('PLANT_STORE_DUPLICATE_AUTHORIZATION', MESSAGES.duplicateAuthorization, 400);
export const UnsupportedExpectation = createError('PLANT_STORE_UNSUPPORTED_EXPECTATION', MESSAGES.unsupportedExpectation, 417);
export const PlantConflict = createError('PLANT_STORE_CONFLICT', MESSAGES.conflict, 409);
export const PlantNotFound = createError('PLANT_STORE_NOT_FOUND', MESSAGES.notFound, 404);
export const MissingToken = createError('PLANT_STORE_MISSING_TOKEN', MESSAGES.missingToken, 401);
export const InvalidToken = createError('PLANT_STORE_INVALID_TOKEN', MESSAGES.invalidToken, 401);
export const InvalidAccessToken = createError('PLANT_STORE_INVALID_ACCESS_TOKEN', MESSAGES.invalidAccessToken, 401);
export const ProviderUnavailable = createError('PLANT_STORE_PROVIDER_UNAVAILABLE', MESSAGES.providerUnavailable, 503);
export const TooManyAuthFailures = createError('PLANT_STORE_AUTH_FAILURES', MESSAGES.tooManyAuthFailures, 429);
export const TooManyRequests = createError('PLANT_STORE_RATE_LIMITED', MESSAGES.tooManyRequests, 429);
export const DatabaseUnavailable = createError('PLANT_STORE_DATABASE_UNAVAILABLE', MESSAGES.databaseUnavailable, 503);
// /readyz's answers when the database answers but cannot take writes: each says why (the log says more, with the file).
export const NotReadyDiskFull = createError('PLANT_STORE_NOT_READY_DISK_FULL', MESSAGES.notReadyDiskFull, 503);
export const NotReadyDamaged = createError('PLANT_STORE_NOT_READY_DAMAGED', MESSAGES.notReadyDamaged, 503);
export const NotReadyFileGone = createError('PLANT_STORE_NOT_READY_FILE_GONE', MESSAGES.notReadyFileGone, 503);
export const DatabaseBusy = createError('PLANT_STORE_DATABASE_BUSY', MESSAGES.databaseBusy, 503);
export const DiskFull = createError('PLANT_STORE_DISK_FULL', MESSAGES.diskFull, 503);
export const DatabaseDamaged = createError('PLANT_STORE_DATABASE_DAMAGED', MESSAGES.databaseDamaged, 503);
export const DatabaseFileGone = createError('PLANT_STORE_DATABASE_FILE_GONE', MESSAGES.databaseFileGone, 503);
export const Overloaded = createError('PLANT_STORE_OVERLOADED', MESSAGES.overloaded, 503);

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
