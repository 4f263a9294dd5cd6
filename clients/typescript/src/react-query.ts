// `@plant-store/client/react-query`: TanStack Query hooks for the Plant Store, on openapi-react-query over the exact-int64 client.
import createQueryClient, { type OpenapiQueryClient } from 'openapi-react-query';
import {
  useInfiniteQuery,
  useQuery,
  useQueryClient,
  type InfiniteData,
  type QueryClient,
  type UseInfiniteQueryResult,
  type UseQueryResult,
} from '@tanstack/react-query';
import type { paths } from '@plant-store/client/types';
import { nextPageQuery, pageRequest, plantListingPage, plantPage, type AllPlantsOptions, type PageAnswer } from './all-plants.js';
import type { ApiError, Plant, PlantStoreClient } from './index.js';
import type { PlantListing } from './plant-listings.js';

/** One page of GET /plants, and the query of the next one (from its Link), undefined on the last page. */
export interface PlantsPage<Item> {
  items: readonly Item[];
  next: string | undefined;
}

/** Every query of GET /plants starts with this key: invalidating it refreshes them all (lists, listings, pages). */
export const PLANTS_QUERY_KEY = ['get', '/plants'] as const;

/**
 * A failure as the hooks report it: the service's Error body, as openapi-react-query throws it, so
 * every hook's `error` is the contract's `Error` type. An answer that did not come from the service
 * (no Error body) is described in the same shape.
 */
function failure(answer: { error: ApiError | undefined; response: Response }): ApiError {
  return answer.error ?? { error: answer.response.status, message: `The service answered ${answer.response.status}.` };
}

async function page<Item>(answer: Promise<PageAnswer<Item>>): Promise<PlantsPage<Item>> {
  const { items, error, response } = await answer;
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- the contract's Error body, as openapi-react-query's own hooks throw it
  if (items === undefined) throw failure({ error, response });
  return { items, next: nextPageQuery(response) };
}

export interface PlantStoreHooks {
  /** openapi-react-query's hooks for any operation of the contract, over the same exact-int64 client. */
  $api: OpenapiQueryClient<paths, 'application/json'>;
  /** GET /plants: one page of Plants (`{ name, tag }`), as the spec answers it. */
  usePlants(options?: AllPlantsOptions): UseQueryResult<Plant[], ApiError>;
  /** GET /plants in the listing representation: one page of `{ id: bigint, name, tag }`, ids exact beyond 2^53. */
  usePlantListings(options?: AllPlantsOptions): UseQueryResult<readonly PlantListing[], ApiError>;
  /** GET /plants page after page, following the Link header: `fetchNextPage()` until `hasNextPage` is false. */
  useInfinitePlants(options?: AllPlantsOptions): UseInfiniteQueryResult<InfiniteData<PlantsPage<Plant>, string | undefined>, ApiError>;
  /** The same pages in the listing representation, with exact ids. */
  useInfinitePlantListings(
    options?: AllPlantsOptions,
  ): UseInfiniteQueryResult<InfiniteData<PlantsPage<PlantListing>, string | undefined>, ApiError>;
  /** POST /plants (`mutate({ body: { id: 42n, name } })`); on success every GET /plants query is refreshed. */
  useCreatePlant: () => ReturnType<typeof useCreate>;
  /** DELETE /plants/{id} (`mutate({ params: { path: { id } } })`); on success every GET /plants query is refreshed. */
  useDeletePlant: () => ReturnType<typeof useDelete>;
}

const refreshPlants = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: PLANTS_QUERY_KEY });

function useCreate($api: OpenapiQueryClient<paths, 'application/json'>) {
  const queryClient = useQueryClient();
  return $api.useMutation('post', '/plants', { onSuccess: () => refreshPlants(queryClient) });
}

function useDelete($api: OpenapiQueryClient<paths, 'application/json'>) {
  const queryClient = useQueryClient();
  return $api.useMutation('delete', '/plants/{id}', { onSuccess: () => refreshPlants(queryClient) });
}

/**
 * The hooks for one client (one base URL and token). Call it once, outside components, and use the
 * hooks inside a `QueryClientProvider`.
 *
 * Plain queries and mutations are openapi-react-query's. The pages and the listing are TanStack's
 * `useQuery`/`useInfiniteQuery` on the client's own page requests, under keys that start like
 * openapi-react-query's: its `useInfiniteQuery` hands `getNextPageParam` the body only, and the
 * next page is named in the Link header (the body stays the spec's plain array); the listing is read
 * as text so its ids are never rounded.
 */
export function createPlantStoreHooks(client: PlantStoreClient): PlantStoreHooks {
  const $api = createQueryClient<paths, 'application/json'>(client);
  const keyOf = (options: AllPlantsOptions, kind: string) => [...PLANTS_QUERY_KEY, { params: { query: { limit: options.limit } } }, kind];
  return {
    $api,
    usePlants: (options = {}) =>
      $api.useQuery('get', '/plants', { params: { query: options.limit === undefined ? {} : { limit: options.limit } } }),
    usePlantListings: (options = {}) =>
      useQuery<readonly PlantListing[], ApiError>({
        queryKey: keyOf(options, 'listing'),
        queryFn: async ({ signal }) => (await page(plantListingPage(client, pageRequest(options, undefined), signal))).items,
      }),
    useInfinitePlants: (options = {}) =>
      useInfiniteQuery<PlantsPage<Plant>, ApiError, InfiniteData<PlantsPage<Plant>, string | undefined>, unknown[], string | undefined>({
        queryKey: keyOf(options, 'pages'),
        initialPageParam: undefined as string | undefined,
        queryFn: ({ pageParam, signal }) => page(plantPage(client, pageRequest(options, pageParam), signal)),
        getNextPageParam: (last) => last.next,
      }),
    useInfinitePlantListings: (options = {}) =>
      useInfiniteQuery<
        PlantsPage<PlantListing>,
        ApiError,
        InfiniteData<PlantsPage<PlantListing>, string | undefined>,
        unknown[],
        string | undefined
      >({
        queryKey: keyOf(options, 'listing pages'),
        initialPageParam: undefined as string | undefined,
        queryFn: ({ pageParam, signal }) => page(plantListingPage(client, pageRequest(options, pageParam), signal)),
        getNextPageParam: (last) => last.next,
      }),
    useCreatePlant: () => useCreate($api),
    useDeletePlant: () => useDelete($api),
  };
}
