// `@plant-store/client/react-query`: TanStack Query hooks for the Plant Store, on openapi-react-query over the exact-int64 client.
import createQueryClient, { type OpenapiQueryClient } from 'openapi-react-query';
import {
  useInfiniteQuery,
  useQuery,
  useQueryClient,
  type InfiniteData,
  type QueryClient,
  type UseInfiniteQueryResult,
  type UseMutationResult,
  type UseQueryResult,
} from '@tanstack/react-query';
import { nextPageQuery, pageRequest, plantListingPage, plantPage, type AllPlantsOptions, type PageAnswer } from './all-plants.js';
import type { Plant, PlantStoreClient } from './index.js';
import type { PathsWithError } from './paths-with-error.js';
import type { PlantListing } from './plant-listings.js';
import { invalidAnswer, type PlantStoreError } from './plant-store-error.js';

/** The contract's paths as the hooks see them: every failure, answered or not, is a PlantStoreError (TanStack Query's TError). */
type HookPaths = PathsWithError<PlantStoreError>;

/** One page of GET /plants, and the query of the next one (from its Link), undefined on the last page. */
export interface PlantsPage<Item> {
  items: readonly Item[];
  next: string | undefined;
}

/** Every query of GET /plants starts with this key: invalidating it refreshes them all (lists, listings, pages). */
export const PLANTS_QUERY_KEY = ['get', '/plants'] as const;

/** A page, or the PlantStoreError that stands for its failure (the client throws the other kinds itself). */
async function page<Item>(answer: Promise<PageAnswer<Item>>): Promise<PlantsPage<Item>> {
  const { items, error, response } = await answer;
  if (items === undefined) throw error ?? invalidAnswer(`GET /plants answered ${response.status} without a body.`, response);
  return { items, next: nextPageQuery(response) };
}

export interface PlantStoreHooks {
  /** openapi-react-query's hooks for any operation of the contract, over the same exact-int64 client. */
  $api: OpenapiQueryClient<HookPaths, 'application/json'>;
  /** GET /plants: one page of Plants (`{ name, tag }`), as the spec answers it. */
  usePlants(options?: AllPlantsOptions): UseQueryResult<Plant[], PlantStoreError>;
  /** GET /plants in the listing representation: one page of `{ id: bigint, name, tag }`, ids exact beyond 2^53. */
  usePlantListings(options?: AllPlantsOptions): UseQueryResult<readonly PlantListing[], PlantStoreError>;
  /** GET /plants page after page, following the Link header: `fetchNextPage()` until `hasNextPage` is false. */
  useInfinitePlants(
    options?: AllPlantsOptions,
  ): UseInfiniteQueryResult<InfiniteData<PlantsPage<Plant>, string | undefined>, PlantStoreError>;
  /** The same pages in the listing representation, with exact ids. */
  useInfinitePlantListings(
    options?: AllPlantsOptions,
  ): UseInfiniteQueryResult<InfiniteData<PlantsPage<PlantListing>, string | undefined>, PlantStoreError>;
  /** POST /plants (`mutate({ body: { id: 42n, name } })`); on success every GET /plants query is refreshed. */
  useCreatePlant: () => Mutation<typeof useCreate>;
  /** DELETE /plants/{id} (`mutate({ params: { path: { id } } })`); on success every GET /plants query is refreshed. */
  useDeletePlant: () => Mutation<typeof useDelete>;
}

/**
 * A mutation hook's result with PlantStoreError as its error, exactly: openapi-fetch's types hand openapi-react-query
 * the error through `Readable<>`, which drops `status?: undefined` from the kinds that have no status.
 */
type Mutation<Hook extends (...args: never[]) => unknown> =
  ReturnType<Hook> extends UseMutationResult<infer Data, unknown, infer Variables, infer Context>
    ? UseMutationResult<Data, PlantStoreError, Variables, Context>
    : never;

const refreshPlants = (queryClient: QueryClient) => queryClient.invalidateQueries({ queryKey: PLANTS_QUERY_KEY });

function useCreate($api: OpenapiQueryClient<HookPaths, 'application/json'>) {
  const queryClient = useQueryClient();
  return $api.useMutation('post', '/plants', { onSuccess: () => refreshPlants(queryClient) });
}

function useDelete($api: OpenapiQueryClient<HookPaths, 'application/json'>) {
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
  const $api = createQueryClient<HookPaths, 'application/json'>(client);
  const keyOf = (options: AllPlantsOptions, kind: string) => [...PLANTS_QUERY_KEY, { params: { query: { limit: options.limit } } }, kind];
  return {
    $api,
    usePlants: (options = {}) =>
      $api.useQuery('get', '/plants', { params: { query: options.limit === undefined ? {} : { limit: options.limit } } }),
    usePlantListings: (options = {}) =>
      useQuery<readonly PlantListing[], PlantStoreError>({
        queryKey: keyOf(options, 'listing'),
        queryFn: async ({ signal }) => (await page(plantListingPage(client, pageRequest(options, undefined), signal))).items,
      }),
    useInfinitePlants: (options = {}) =>
      useInfiniteQuery<
        PlantsPage<Plant>,
        PlantStoreError,
        InfiniteData<PlantsPage<Plant>, string | undefined>,
        unknown[],
        string | undefined
      >({
        queryKey: keyOf(options, 'pages'),
        initialPageParam: undefined as string | undefined,
        queryFn: ({ pageParam, signal }) => page(plantPage(client, pageRequest(options, pageParam), signal)),
        getNextPageParam: (last) => last.next,
      }),
    useInfinitePlantListings: (options = {}) =>
      useInfiniteQuery<
        PlantsPage<PlantListing>,
        PlantStoreError,
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
