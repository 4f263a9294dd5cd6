// What the query hooks must do in a real React 19 render, against any Plant Store (live, or the mock): one scenario for both.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { createElement, type ReactNode } from 'react';
import type { Test } from 'tap';
import { createPlantStoreClient, type ApiError, type PlantStoreError } from '@plant-store/client';
import { createPlantStoreHooks } from '@plant-store/client/react-query';

const WAIT = { timeout: 15_000, interval: 20 };
/** 2^53 + 1 (JSON.parse makes it 2^53) and the int64 extremes, around small ids. */
const IDS = [9007199254740993n, 9223372036854775807n, -9223372036854775808n, 1n, 2n];
const SORTED = [...IDS].sort((a, b) => (a < b ? -1 : 1));
const name = (id: bigint) => `plant ${id}`;

/** Waits until `check` holds for the hook's latest result, then answers that result. */
async function until<Result>(hook: { result: { current: Result } }, check: (result: Result) => boolean): Promise<Result> {
  await waitFor(() => {
    if (!check(hook.result.current)) throw new Error('not yet');
  }, WAIT);
  return hook.result.current;
}

export async function hooksScenario(t: Test, baseUrl: string, token: string): Promise<void> {
  const queryClient = new QueryClient({
    // No garbage-collection timers: they would keep the test process alive for five minutes after its end.
    defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { gcTime: Infinity } },
  });
  const wrapper = ({ children }: { children: ReactNode }) => createElement(QueryClientProvider, { client: queryClient }, children);
  t.teardown(() => {
    cleanup();
    queryClient.clear();
  });
  const hooks = createPlantStoreHooks(createPlantStoreClient({ baseUrl, token }));

  // List, then create: the list shows each plant, in id order.
  const list = renderHook(() => hooks.usePlants(), { wrapper });
  t.same((await until(list, (query) => query.isSuccess)).data, [], 'usePlants: an empty list');
  const create = renderHook(() => hooks.useCreatePlant(), { wrapper });
  for (const id of IDS) await act(() => create.result.current.mutateAsync({ body: { id, name: name(id) } }));
  const shown = await until(list, (query) => query.data?.length === IDS.length);
  t.same(
    shown.data?.map((plant) => plant.name),
    SORTED.map(name),
    'useCreatePlant refreshed usePlants: every plant, in ascending id order',
  );

  // The listing: ids exact beyond 2^53, as bigint.
  const listing = renderHook(() => hooks.usePlantListings(), { wrapper });
  const listed = await until(listing, (query) => query.isSuccess);
  t.same(
    listed.data?.map((plant) => `${typeof plant.id} ${plant.id} ${plant.name}`),
    SORTED.map((id) => `bigint ${id} ${name(id)}`),
    'usePlantListings: exact bigint ids, 9007199254740993 and the int64 extremes included',
  );

  // Infinite pages of 2, followed through Link to the end.
  const pages = renderHook(() => hooks.useInfinitePlantListings({ limit: 2 }), { wrapper });
  await until(pages, (query) => query.isSuccess);
  while (pages.result.current.hasNextPage) {
    await act(() => pages.result.current.fetchNextPage());
  }
  const walked = pages.result.current.data!;
  t.equal(walked.pages.length, 3, 'useInfinitePlantListings: 3 pages of 2 for 5 plants');
  t.same(
    walked.pages.flatMap((page) => page.items.map((plant) => String(plant.id))),
    SORTED.map(String),
    'each plant once, in id order, ids exact',
  );
  t.equal(walked.pages.at(-1)?.next, undefined, 'the last page has no next');
  const plainPages = renderHook(() => hooks.useInfinitePlants({ limit: 4 }), { wrapper });
  await until(plainPages, (query) => query.isSuccess);
  while (plainPages.result.current.hasNextPage) {
    await act(() => plainPages.result.current.fetchNextPage());
  }
  const plain = plainPages.result.current;
  t.same(
    plain.data?.pages.map((page) => page.items.length),
    [4, 1],
    'useInfinitePlants: pages of Plants, to the end',
  );

  // Delete: every GET /plants query is refreshed.
  const remove = renderHook(() => hooks.useDeletePlant(), { wrapper });
  await act(() => remove.result.current.mutateAsync({ params: { path: { id: 9223372036854775807n } } }));
  await until(listing, (query) => query.data?.length === IDS.length - 1);
  t.notOk(
    listing.result.current.data?.some((plant) => plant.id === 9223372036854775807n),
    'useDeletePlant: the listing no longer shows it',
  );
  await until(list, (query) => query.data?.length === IDS.length - 1);
  t.pass('useDeletePlant: usePlants refreshed too');

  // Failures surface as the contract's Error, typed.
  const badQuery = renderHook(() => hooks.usePlants({ limit: 0 }), { wrapper });
  const refusal: PlantStoreError = (await until(badQuery, (query) => query.isError)).error!;
  if (refusal.kind !== 'api') throw refusal;
  const refused: ApiError = refusal; // narrowed to kind 'api', it is the contract's Error
  t.equal(refused.error, 400, 'usePlants({ limit: 0 }): a 400 Error');
  t.match(refused.message, /limit/, 'whose message names the limit');
  await act(() => create.result.current.mutateAsync({ body: { id: 3n, name: '' } }).catch(() => undefined));
  const badCreate = await until(create, (mutation) => mutation.isError);
  t.equal(badCreate.error?.kind === 'api' && badCreate.error.status, 400, 'useCreatePlant with an empty name: a 400 Error');
  await act(() => create.result.current.mutateAsync({ body: { id: 1n, name: 'another' } }).catch(() => undefined));
  const conflict = (await until(create, (mutation) => mutation.error?.kind === 'api' && mutation.error.status === 409)).error;
  t.equal(conflict?.kind === 'api' && conflict.body.error, 409, 'the same id with another name: 409');

  const stranger = createPlantStoreHooks(createPlantStoreClient({ baseUrl, token: `pst_${'x'.repeat(43)}` }));
  const denied = renderHook(() => stranger.usePlants(), { wrapper });
  const unauthorized = (await until(denied, (query) => query.isError)).error!;
  t.equal(unauthorized.kind === 'api' && unauthorized.status, 401, 'an unknown token: usePlants gives a 401 Error');
  t.equal(unauthorized.kind === 'api' && unauthorized.headers['www-authenticate']?.startsWith('Bearer'), true, 'with its challenge');
  const viaApi = renderHook(() => stranger.$api.useQuery('get', '/plants'), { wrapper });
  const apiFailure = (await until(viaApi, (query) => query.isError)).error!;
  t.same(apiFailure.kind === 'api' && [apiFailure.status, apiFailure.body.error], [401, 401], "$api's own hooks: the same PlantStoreError");
  const deniedPages = renderHook(() => stranger.useInfinitePlantListings(), { wrapper });
  const deniedPage = (await until(deniedPages, (query) => query.isError)).error;
  t.equal(deniedPage?.kind === 'api' && deniedPage.status, 401, 'and so do the pages');
}
