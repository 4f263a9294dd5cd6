// GET /plants page by page, following rel="next": one page at a time (for the query hooks), or async iterators over all of a user's plants.
import type { Client } from 'openapi-fetch';
import type { components } from '@plant-store/client/types';
import { nextLink } from './link-header.js';
import { LISTING_MEDIA_TYPE, parsePlantListings, type PlantListing } from './plant-listings.js';
import type { PathsWithError } from './paths-with-error.js';
import { invalidAnswer, type PlantStoreApiError } from './plant-store-error.js';

type Plant = components['schemas']['Plant'];
/** The client as createPlantStoreClient makes it: an Error answer comes back as a PlantStoreError of kind 'api'. */
type PagingClient = Client<PathsWithError<PlantStoreApiError>>;

export interface AllPlantsOptions {
  /** Plants per page, 1 to 1000 (the service's default is 100). */
  limit?: number;
}

/** How a page is asked for: the first with the caller's limit, the next ones with exactly the query of the Link target. */
export type PageRequest = { params: { query: { limit?: number } } } | { querySerializer: () => string };

export interface PageAnswer<Item> {
  items: readonly Item[] | undefined;
  error: PlantStoreApiError | undefined;
  response: Response;
}

/**
 * The query of the page after `response` (its opaque cursor and limit), or undefined on the last page.
 * The next page is GET /plants with exactly this query, sent through the same client: the token only
 * ever goes to the base URL the client was given, whatever the Link says.
 */
export function nextPageQuery(response: Response): string | undefined {
  const next = nextLink(response.headers.get('link'));
  return next === undefined ? undefined : new URL(next, 'http://link.invalid').search.slice(1);
}

/** The request for a page: the first one, or the one a Link named (`nextPageQuery`). */
export function pageRequest(options: AllPlantsOptions, query: string | undefined): PageRequest {
  if (query !== undefined) return { querySerializer: () => query };
  return { params: { query: options.limit === undefined ? {} : { limit: options.limit } } };
}

/** One page of Plants. */
export async function plantPage(client: PagingClient, request: PageRequest, signal?: AbortSignal): Promise<PageAnswer<Plant>> {
  const { data, error, response } = await client.GET('/plants', { ...request, ...(signal && { signal }) });
  return { items: data, error, response };
}

/**
 * One page in the listing representation: each plant with its id, a bigint read digit for
 * digit (the body is not given to JSON.parse, which would round ids past 2^53).
 */
export async function plantListingPage(
  client: PagingClient,
  request: PageRequest,
  signal?: AbortSignal,
): Promise<PageAnswer<PlantListing>> {
  const { data, error, response } = await client.GET('/plants', {
    ...request,
    ...(signal && { signal }),
    headers: { accept: LISTING_MEDIA_TYPE },
    parseAs: 'text',
  });
  if (data === undefined) return { items: undefined, error, response };
  const type = response.headers.get('content-type') ?? '';
  // A service older than the listing answers the Plant array, which has no ids: say so rather than fail on item 0.
  if (type.split(';', 1)[0]!.trim().toLowerCase() !== LISTING_MEDIA_TYPE) {
    throw invalidAnswer(
      `GET /plants answered ${type || 'no Content-Type'} instead of ${LISTING_MEDIA_TYPE}: the service (or a proxy before it) does not offer the listing.`,
      response,
    );
  }
  try {
    return { items: parsePlantListings(data), error, response };
  } catch (cause) {
    throw invalidAnswer((cause as Error).message, response, cause);
  }
}

/** GET /plants page after page, through `get`, until a page has no rel="next". */
async function* follow<Item>(
  options: AllPlantsOptions,
  get: (request: PageRequest) => Promise<PageAnswer<Item>>,
): AsyncGenerator<Item, void, undefined> {
  let query: string | undefined;
  do {
    const { items, error, response } = await get(pageRequest(options, query));
    // The client gives `error` for every answer that is not ok (it makes one when the body was not an Error).
    if (items === undefined) throw error ?? invalidAnswer(`GET /plants answered ${response.status} without a body.`, response);
    yield* items;
    query = nextPageQuery(response);
  } while (query !== undefined);
}

export function allPlants(client: PagingClient, options: AllPlantsOptions = {}): AsyncGenerator<Plant, void, undefined> {
  return follow(options, (request) => plantPage(client, request));
}

/** The same pages in the listing representation: each plant with its exact id. */
export function allPlantListings(client: PagingClient, options: AllPlantsOptions = {}): AsyncGenerator<PlantListing, void, undefined> {
  return follow(options, (request) => plantListingPage(client, request));
}
