// The one error class of the client (Stripe's model): every failure a call or a hook can surface, told apart by `kind`.
import type { components } from '@plant-store/client/types';

type ApiError = components['schemas']['Error'];

/** What the service, or whatever answered in its place, said: the contract's Error. */
export interface PlantStoreApiErrorFields {
  readonly kind: 'api';
  /** The HTTP status of the answer (400 to 599). */
  readonly status: number;
  /** The Error body's `error`, equal to `status`: with `message`, this error is the contract's Error itself. */
  readonly error: number;
  /** The Error body: the service's, or one made from the status when the answer was not the service's (a proxy's HTML 502). */
  readonly body: ApiError;
  /**
   * The answer's headers, names in lower case: `retry-after`, `www-authenticate`, `x-request-id`. A plain object, not
   * the Response: openapi-fetch's types keep only plain data in an error, and TanStack Query may keep errors in its cache.
   */
  readonly headers: Readonly<Record<string, string>>;
}

/** No answer at all: no server, a CORS refusal (a browser does not tell the two apart), a timeout or an abort. */
export interface PlantStoreConnectionErrorFields {
  readonly kind: 'connection';
  /** No answer, so no status (kept on every kind so `error.status` reads without narrowing first). */
  readonly status?: undefined;
  /** `abort` when the request's signal was aborted, `timeout` when it timed out (AbortSignal.timeout), else `network`. */
  readonly reason: 'network' | 'timeout' | 'abort';
  /** What fetch threw: a TypeError ("Failed to fetch", "fetch failed") or a DOMException. */
  readonly cause: unknown;
}

/** Refused before anything was sent: an id given as a number past 2^53, which has already been rounded. */
export interface PlantStoreInvalidRequestErrorFields {
  readonly kind: 'invalid-request';
  readonly status?: undefined;
  /** The RangeError or TypeError that says what is wrong with the request. */
  readonly cause: unknown;
}

/** A 2xx answer the client cannot read as the contract says: not JSON, or GET /plants without the listing. */
export interface PlantStoreInvalidAnswerErrorFields {
  readonly kind: 'invalid-answer';
  /** The answer's status, when the client still has the answer (not when openapi-fetch's JSON.parse threw). */
  readonly status: number | undefined;
  /** The SyntaxError or TypeError that says what could not be read. */
  readonly cause: unknown;
}

type Fields =
  PlantStoreApiErrorFields | PlantStoreConnectionErrorFields | PlantStoreInvalidRequestErrorFields | PlantStoreInvalidAnswerErrorFields;

/** Every error of the client: switch on `kind` and TypeScript narrows to the fields that kind has. */
export type PlantStoreError = Error & { readonly name: 'PlantStoreError' } & Fields;
export type PlantStoreApiError = Extract<PlantStoreError, { kind: 'api' }>;

export interface PlantStoreErrorConstructor {
  new (message: string, fields: Fields): PlantStoreError;
  /** Typed as the union, so `error instanceof PlantStoreError` narrows to it and `kind` narrows further. */
  readonly prototype: PlantStoreError;
}

class PlantStoreErrorClass extends Error {
  override readonly name = 'PlantStoreError';

  constructor(message: string, fields: Fields) {
    super(message, 'cause' in fields ? { cause: fields.cause } : undefined);
    Object.assign(this, fields);
  }
}

export const PlantStoreError = PlantStoreErrorClass as unknown as PlantStoreErrorConstructor;

/** The error for an Error answer. */
export function apiError(body: ApiError, response: Response): PlantStoreApiError {
  const headers = Object.fromEntries(response.headers);
  return new PlantStoreError(body.message, {
    kind: 'api',
    status: response.status,
    error: body.error,
    body,
    headers,
  }) as PlantStoreApiError;
}

const isNamed = (error: unknown, name: string) =>
  typeof error === 'object' && error !== null && (error as { name?: unknown }).name === name;

/** A failure thrown while calling the service, as the PlantStoreError it is (an error that already is one is kept). */
export function thrownError(error: unknown): PlantStoreError {
  if (error instanceof PlantStoreError) return error;
  // openapi-fetch reads a 2xx body with JSON.parse: an answer came, but not JSON.
  if (error instanceof SyntaxError)
    return invalidAnswer(`The answer is not the JSON the contract says: ${error.message}`, undefined, error);
  const reason = isNamed(error, 'AbortError') ? 'abort' : isNamed(error, 'TimeoutError') ? 'timeout' : 'network';
  const said = error instanceof Error ? error.message : String(error);
  const message =
    reason === 'network'
      ? `No answer from the service (${said}): it is not running or not reachable at this address, or, in a browser, CORS refused this page's origin.`
      : `The request was ${reason === 'abort' ? 'aborted' : 'timed out'} before the service answered (${said}).`;
  return new PlantStoreError(message, { kind: 'connection', reason, cause: error });
}

/** The error for a request refused before sending, with the reason as its cause. */
export function invalidRequest(cause: Error): PlantStoreError {
  return new PlantStoreError(cause.message, { kind: 'invalid-request', cause });
}

/** The error for a 2xx answer that cannot be read as the contract says. */
export function invalidAnswer(message: string, response: Response | undefined, cause?: unknown): PlantStoreError {
  return new PlantStoreError(message, { kind: 'invalid-answer', status: response?.status, cause });
}
