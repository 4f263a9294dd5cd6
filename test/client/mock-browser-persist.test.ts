// The mock in a real browser, as a frontend app runs it (bundled, MSW's service worker): with persist: true its plants survive a reload; without, they do not.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { openPage, skipReason, WAIT, watch } from '../helpers/chromium.js';
import { projectRoot } from '../helpers/paths.js';

/** The app: the mock in MSW's worker at /api, and the client calling it; `?persist` turns persist on. */
const APP = `
import { setupWorker } from 'msw/browser';
import { createPlantStoreClient } from '@plant-store/client';
import { plantStoreHandlers } from '@plant-store/client/mock';

const persist = new URLSearchParams(location.search).has('persist');
const worker = setupWorker(...plantStoreHandlers({ baseUrl: '/api', tokens: ['pst_dev'], persist }));
await worker.start({ quiet: true, onUnhandledRequest: 'bypass' });
const client = createPlantStoreClient({ baseUrl: location.origin + '/api', token: 'pst_dev' });
window.app = {
  add: async (id, name) => (await client.POST('/plants', { body: { id: BigInt(id), name } })).response.status,
  remove: async (id) => (await client.DELETE('/plants/{id}', { params: { path: { id: BigInt(id) } } })).response.status,
  list: async () => {
    const listed = [];
    for await (const plant of client.allPlantListings({ limit: 2 })) listed.push(plant.id + ' ' + plant.name);
    return listed;
  },
};
`;

/** An origin serving the bundled app and MSW's worker script; anything else is a 404 (so a request the worker missed shows). */
async function appOrigin(t: Test): Promise<{ origin: string; served: string[] }> {
  const bundle = await build({
    stdin: { contents: APP, resolveDir: projectRoot, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.text;
  const worker = readFileSync(join(projectRoot, 'node_modules', 'msw', 'lib', 'mockServiceWorker.js'), 'utf8');
  const served: string[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    served.push(path);
    const send = (type: string, body: string) => response.writeHead(200, { 'content-type': type }).end(body);
    if (path === '/') return send('text/html', '<!doctype html><script type="module" src="/app.js"></script>');
    if (path === '/app.js') return send('text/javascript', script);
    if (path === '/mockServiceWorker.js') return send('text/javascript', worker);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, served };
}

type App = {
  add(id: string, name: string): Promise<number>;
  remove(id: string): Promise<number>;
  list(): Promise<string[]>;
};

/** Opens `url` and waits until the app has started its worker. */
async function open(page: Page, url: string): Promise<void> {
  await page.goto(url, WAIT);
  await page.waitForFunction(() => 'app' in globalThis, undefined, WAIT);
}

const call = <K extends keyof App>(page: Page, method: K, ...args: Parameters<App[K]>) =>
  page.evaluate(
    ([name, values]) => (globalThis as unknown as { app: Record<string, (...a: unknown[]) => unknown> }).app[name]!(...values),
    [method, args] as const,
  ) as Promise<Awaited<ReturnType<App[K]>>>;

const skip = skipReason();
if (skip !== undefined) {
  t.plan(0, skip);
} else {
  t.test('persist: true keeps the plants across a reload; without it a reload starts empty', async (t) => {
    const { origin, served } = await appOrigin(t);
    const page = await openPage(t);
    const seen = await watch(page, `${origin}/api`);

    await open(page, `${origin}/?persist`);
    t.same(
      await Promise.all([call(page, 'add', '9223372036854775807', 'Max'), call(page, 'add', '1', 'One'), call(page, 'add', '2', 'Two')]),
      [200, 200, 200],
    );
    t.equal(await call(page, 'remove', '2'), 204);
    await page.reload(WAIT);
    await page.waitForFunction(() => 'app' in globalThis, undefined, WAIT);
    t.same(await call(page, 'list'), ['1 One', '9223372036854775807 Max'], 'after a reload: the plants, ids exact, the deleted one gone');
    t.equal(await call(page, 'add', '1', 'Another'), 409, 'and a conflict with a kept plant');

    await open(page, `${origin}/`);
    t.same(await call(page, 'list'), [], 'without persist, the mock starts empty');

    t.same(
      seen.requests.filter((request) => request.url.startsWith(`${origin}/api`) && request.authorization === undefined),
      [],
      'every API call carried the token',
    );
    t.same(
      served.filter((path) => path.startsWith('/api')),
      [],
      'the worker answered every API call: none reached the page server',
    );
  });
}
