// @plant-store/client against a real server whose contract deprecates GET /plants's `limit` and GET /healthz:
// onDeprecated hears every answer that carries Deprecation, the default warns once per operation, paging still works.
import t, { type Test } from 'tap';
import { createPlantStoreClient, type DeprecationNotice } from '../../clients/typescript/src/index.js';
import { linksOf } from '../../clients/typescript/src/link-header.js';
import { buildApp } from '../../src/app.js';
import { testConfig, tokenFor } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';
import { deprecatedContract, HEALTH, LIMIT } from '../helpers/deprecated-contract.js';

async function serve(t: Test) {
  const app = await buildApp(await testConfig(t), { contract: deprecatedContract() });
  t.teardown(() => app.close());
  return { baseUrl: await listen(app), token: await tokenFor(app, 'alice') };
}

t.test('onDeprecated hears each answer that announces a deprecation, with its dates and links', async (t) => {
  const { baseUrl, token } = await serve(t);
  const notices: DeprecationNotice[] = [];
  const client = createPlantStoreClient({ baseUrl, token, onDeprecated: (notice) => notices.push(notice) });
  for (const id of [1, 2, 3]) t.equal((await client.POST('/plants', { body: { id, name: `Fern ${id}` } })).response.status, 200);
  t.equal(notices.length, 0, 'nothing deprecated was used');
  await client.GET('/plants');
  t.equal(notices.length, 0, 'limit left out: nothing announced');

  const page = await client.GET('/plants', { params: { query: { limit: 2 } } });
  t.equal(page.data?.length, 2);
  t.equal(notices.length, 1);
  const [notice] = notices;
  t.equal(notice?.operation, 'GET /plants');
  t.equal(notice?.deprecatedAt?.toISOString(), `${LIMIT.deprecatedAt}T00:00:00.000Z`);
  t.equal(notice?.sunset?.toISOString(), `${LIMIT.sunset}T00:00:00.000Z`);
  t.same(notice?.links, ['/docs']);
  t.equal(notice?.response.status, 200);

  // The deprecation's link rides in the same Link field as the page's rel="next": paging still follows next.
  t.same(linksOf(page.response.headers.get('link'), 'next').length, 1);
  const names = [];
  for await (const plant of client.allPlants({ limit: 2 })) names.push(plant.name);
  t.same(names, ['Fern 1', 'Fern 2', 'Fern 3'], 'both pages');
  t.equal(notices.length, 3, 'each page asked with limit announced it');
});

t.test('by default, one console warning per operation', async (t) => {
  const { baseUrl, token } = await serve(t);
  const warnings = t.capture(console, 'warn');
  const client = createPlantStoreClient({ baseUrl, token });
  await client.GET('/plants', { params: { query: { limit: 5 } } });
  await client.GET('/plants', { params: { query: { limit: 5 } } });
  await client.GET('/healthz');
  await client.GET('/healthz');
  await client.GET('/readyz');
  t.same(
    warnings().map((call) => call.args),
    [
      [`@plant-store/client: GET /plants is deprecated (since ${LIMIT.deprecatedAt}), and may be gone after ${LIMIT.sunset}; see /docs`],
      [
        `@plant-store/client: GET /healthz is deprecated (since ${HEALTH.deprecatedAt}), and may be gone after ${HEALTH.sunset}; see ${HEALTH.link}`,
      ],
    ],
  );
});
