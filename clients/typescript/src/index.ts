// `@plant-store/client`: a typed client for the Plant Store API, a thin layer on openapi-fetch.
import createClient, { defaultPathSerializer, type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from '@plant-store/client/types';
import { allPlantListings, allPlants, type AllPlantsOptions } from './all-plants.js';
import { deprecationNotices, warnOncePerOperation, type OnDeprecated } from './deprecation-notice.js';
import { assertExactNumber, stringifyExact } from './exact-json.js';
import type { PlantListing } from './plant-listings.js';
import { apiError, invalidRequest, thrownError, type PlantStoreApiError } from './plant-store-error.js';
import type { PathsWithError } from './paths-with-error.js';

export {
  PlantStoreError,
  type PlantStoreApiError,
  type PlantStoreApiErrorFields,
  type PlantStoreConnectionErrorFields,
  type PlantStoreErrorConstructor,
  type PlantStoreInvalidAnswerErrorFields,
  type PlantStoreInvalidRequestErrorFields,
} from './plant-store-error.js';
export type { PathsWithError } from './paths-with-error.js';
export type { AllPlantsOptions } from './all-plants.js';
export type { DeprecationNotice, OnDeprecated } from './deprecation-notice.js';
export { LISTING_MEDIA_TYPE, parsePlantListings, type PlantListing } from './plant-listings.js';
export type { components, paths } from '@plant-store/client/types';

export type Plant = components['schemas']['Plant'];
export type NewPlant = components['schemas']['NewPlant'];
/** The body of every failure the service answers (400, 401, 404, 409, 413, 415, 429, 500, 503). */
export type ApiError = components['schemas']['Error'];

export interface PlantStoreClientOptions {
  /** Where the service is, such as `http://127.0.0.1:3000`; in a browser also a relative base such as `/api`. */
  baseUrl: string;
  /** A bearer token, from `npx plant-store token create <user>`. */
  token: string;
  /** Used instead of `globalThis.fetch`, for logging, retries or tests. */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Called for every answer that carries a `Deprecation` header: the operation (or a parameter the request
   * used) is deprecated and may be gone after its sunset. By default, one `console.warn` per operation.
   */
  onDeprecated?: OnDeprecated;
}

/**
 * openapi-fetch's client for `paths` (GET, POST, DELETE, ... with typed `data` and `error`), plus the page iterators.
 * A failed answer resolves with `error`, a PlantStoreError of kind 'api' (also the contract's `{ error, message }`);
 * no answer (kind 'connection') and a request refused before sending (kind 'invalid-request') reject with a PlantStoreError.
 */
export type PlantStoreClient = Client<PathsWithError<PlantStoreApiError>, 'application/json'> & {
  /** Every plant of the token's user, in ascending id order, fetching page after page as it goes. */
  allPlants(options?: AllPlantsOptions): AsyncGenerator<Plant, void, undefined>;
  /** The same plants with their ids (`{ id: bigint, name, tag? }`), exact also beyond 2^53: GET /plants's listing representation. */
  allPlantListings(options?: AllPlantsOptions): AsyncGenerator<PlantListing, void, undefined>;
};

/** Whether `body` is the contract's Error body for `status`. */
const isErrorBody = (body: unknown, status: number): body is ApiError =>
  (body as Partial<ApiError> | null)?.error === status && typeof (body as Partial<ApiError>).message === 'string';

function parsesAsErrorBody(text: string, status: number): boolean {
  try {
    return isErrorBody(JSON.parse(text), status);
  } catch {
    return false;
  }
}

/**
 * A failure whose body is not the contract's Error (a load balancer's HTML 502, an empty 504) is handed on with
 * one made from its status, so every `error` is an `ApiError`, as the types say; its other headers are kept.
 */
const errorShape: Middleware = {
  async onResponse({ response }) {
    if (response.status < 400 || parsesAsErrorBody(await response.clone().text(), response.status)) return undefined;
    const type = response.headers.get('content-type') ?? 'no content type';
    const status = [response.status, response.statusText].filter(Boolean).join(' ');
    const message = `The answer did not come from the service: ${status} (${type}).`;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    headers.set('content-type', 'application/json');
    return new Response(JSON.stringify({ error: response.status, message }), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  },
};

/** Runs `write`, turning what it throws (a rounded id, a body that is not JSON) into a PlantStoreError of kind 'invalid-request'. */
function beforeSending<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw invalidRequest(error as Error);
  }
}

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'] as const;

type Call = (...args: unknown[]) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/** A call whose failures are PlantStoreErrors: an Error answer in `error`, anything thrown rethrown as one. */
const typedFailures =
  (call: Call): Call =>
  async (...args) => {
    let answer: Awaited<ReturnType<Call>>;
    try {
      answer = await call(...args);
    } catch (error) {
      throw thrownError(error);
    }
    const { response } = answer;
    if (response.ok) return answer;
    const body = isErrorBody(answer.error, response.status)
      ? answer.error
      : { error: response.status, message: `The service answered ${response.status}.` };
    return { error: apiError(body, response), response };
  };

export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const client = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.token}` },
    ...(options.fetch && { fetch: options.fetch }),
    // int64 ids: a bigint goes on the wire as bare digits, never through a rounded number.
    bodySerializer: (body) => beforeSending(() => stringifyExact(body)),
    pathSerializer: (pathname, parameters) =>
      beforeSending(() => {
        Object.values(parameters).forEach(assertExactNumber);
        return defaultPathSerializer(pathname, parameters);
      }),
  });
  client.use(errorShape, deprecationNotices(options.onDeprecated ?? warnOncePerOperation()));
  const methods = client as unknown as Record<(typeof METHODS)[number] | 'request', Call>;
  for (const method of [...METHODS, 'request'] as const) methods[method] = typedFailures(methods[method].bind(client));
  return Object.assign(client as unknown as Client<PathsWithError<PlantStoreApiError>, 'application/json'>, {
    allPlants: (listOptions?: AllPlantsOptions) => allPlants(client, listOptions),
    allPlantListings: (listOptions?: AllPlantsOptions) => allPlantListings(client, listOptions),
  });
}
