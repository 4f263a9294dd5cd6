// `@plant-store/client`: a typed client for the Plant Store API, a thin layer on openapi-fetch.
import createClient, { defaultPathSerializer, type Client, type Middleware } from 'openapi-fetch';
import type { components, paths } from '@plant-store/client/types';
import { allPlantListings, allPlants, type AllPlantsOptions } from './all-plants.js';
import { deprecationNotices, warnOncePerOperation, type OnDeprecated } from './deprecation-notice.js';
import { assertExactNumber, stringifyExact } from './exact-json.js';
import type { PlantListing } from './plant-listings.js';

export { PlantStoreError } from './plant-store-error.js';
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

/** openapi-fetch's client for `paths` (GET, POST, DELETE, ... with typed `data` and `error`), plus the page iterators. */
export type PlantStoreClient = Client<paths, 'application/json'> & {
  /** Every plant of the token's user, in ascending id order, fetching page after page as it goes. */
  allPlants(options?: AllPlantsOptions): AsyncGenerator<Plant, void, undefined>;
  /** The same plants with their ids (`{ id: bigint, name, tag? }`), exact also beyond 2^53: GET /plants's listing representation. */
  allPlantListings(options?: AllPlantsOptions): AsyncGenerator<PlantListing, void, undefined>;
};

/** Whether `text` is the contract's Error body for `status`. */
function isErrorBody(text: string, status: number): boolean {
  try {
    const body = JSON.parse(text) as Partial<ApiError> | null;
    return body?.error === status && typeof body.message === 'string';
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
    if (response.status < 400 || isErrorBody(await response.clone().text(), response.status)) return undefined;
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

export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const client = createClient<paths, 'application/json'>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.token}` },
    ...(options.fetch && { fetch: options.fetch }),
    // int64 ids: a bigint goes on the wire as bare digits, never through a rounded number.
    bodySerializer: stringifyExact,
    pathSerializer: (pathname, parameters) => {
      Object.values(parameters).forEach(assertExactNumber);
      return defaultPathSerializer(pathname, parameters);
    },
  });
  client.use(errorShape, deprecationNotices(options.onDeprecated ?? warnOncePerOperation()));
  return Object.assign(client, {
    allPlants: (listOptions?: AllPlantsOptions) => allPlants(client, listOptions),
    allPlantListings: (listOptions?: AllPlantsOptions) => allPlantListings(client, listOptions),
  });
}
