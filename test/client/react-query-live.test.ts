// The query hooks in a real React 19 render (jsdom) against a live Plant Store on a fresh database, and against no server at all.
import './react-dom-globals.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { createElement, type ReactNode } from 'react';
import t from 'tap';
import { createPlantStoreClient, type PlantStoreError } from '@plant-store/client';
import { createPlantStoreHooks } from '@plant-store/client/react-query';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';
import { hooksScenario } from './react-query-scenario.js';

t.test('hooks against a live Plant Store', async (t) => {
  const app = await buildTestApp(t);
  const baseUrl = await listen(app);
  await hooksScenario(t, baseUrl, await tokenFor(app, 'alice'));
});

t.test('no server, and an id refused before sending: the hooks say which, by kind', async (t) => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { gcTime: Infinity } } });
  const wrapper = ({ children }: { children: ReactNode }) => createElement(QueryClientProvider, { client: queryClient }, children);
  t.teardown(() => {
    cleanup();
    queryClient.clear();
  });
  const hooks = createPlantStoreHooks(createPlantStoreClient({ baseUrl, token: 'pst_x' }));

  const list = renderHook(() => hooks.usePlants(), { wrapper });
  await waitFor(() => {
    if (!list.result.current.isError) throw new Error('not yet');
  });
  const failure: PlantStoreError = list.result.current.error!;
  // Narrowed by kind: `reason` exists only on 'connection', `body` only on 'api'.
  t.same(failure.kind === 'connection' && [failure.reason, failure.status, (failure.cause as Error).name], [
    'network',
    undefined,
    'TypeError',
  ]);

  const pages = renderHook(() => hooks.useInfinitePlantListings(), { wrapper });
  await waitFor(() => {
    if (!pages.result.current.isError) throw new Error('not yet');
  });
  t.equal(pages.result.current.error?.kind, 'connection', 'the pages too');

  const create = renderHook(() => hooks.useCreatePlant(), { wrapper });
  await act(() => create.result.current.mutateAsync({ body: { id: 2 ** 53 + 2, name: 'Rounded' } }).catch(() => undefined));
  await waitFor(() => {
    if (!create.result.current.isError) throw new Error('not yet');
  });
  const refused = create.result.current.error;
  t.same(
    refused?.kind === 'invalid-request' && [
      refused.message.startsWith('9007199254740994 is beyond 2^53'),
      refused.cause instanceof RangeError,
    ],
    [true, true],
  );
});
