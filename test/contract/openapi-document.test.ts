// The served contract equals openapi.yaml, and the app serves exactly its operations.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { parse } from 'yaml';
import { operations } from '../../generated/schemas.js';
import { bearer, buildTestApp, inject, tokenFor } from '../helpers/app.js';
import { projectRoot } from '../helpers/paths.js';

const yamlText = readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8');

t.test('/openapi.json deep-equals the parsed /openapi.yaml, which is the file apart from the oidc scheme (no provider here)', async (t) => {
  const app = await buildTestApp(t);
  const json = await inject(t, app, { url: '/openapi.json' });
  t.match(json.headers['content-type'], /^application\/json/);
  const expected = parse(yamlText);
  delete expected.components.securitySchemes.oidc;
  expected.security = expected.security.filter((requirement: object) => !('oidc' in requirement));
  t.same(json.json(), expected);
  const document = json.json();
  t.equal(document.openapi, '3.1.0');
  t.same(document.info.license, { name: 'MIT', identifier: 'MIT' });
  t.equal(document.info.version, '1.0.0');
  const yaml = await inject(t, app, { url: '/openapi.yaml' });
  t.match(yaml.headers['content-type'], /^application\/yaml/);
  t.same(parse(yaml.body), json.json());
});

const declared = Object.values(operations)
  .map((operation) => `${operation.method} ${operation.url}`)
  .sort();
/**
 * Operations served, HEAD apart: HTTP defines HEAD as GET without the body, so openapi.yaml says in
 * words where it is answered (the open GETs) instead of declaring each twice.
 */
const served = (routes: { url: string; methods: string[] }[]) =>
  routes.flatMap((route) => route.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${route.url}`)).sort();
const openGets = Object.values(operations)
  .filter((operation) => operation.public && (operation.method as string) === 'GET')
  .map((operation) => `HEAD ${operation.url}`)
  .sort();

/** The routes Fastify's router holds, read from its printRoutes tree: a line's depth (4 columns a level) puts its segment under the one above. */
async function routeTable(app: FastifyInstance): Promise<{ url: string; methods: string[] }[]> {
  await app.ready();
  const path: string[] = [];
  return app
    .printRoutes({ commonPrefix: false })
    .split('\n')
    .flatMap((line) => {
      const [, indent, segment, methods] = /^([│ ]*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line) ?? [];
      if (indent === undefined || segment === undefined) return [];
      path.length = indent.length / 4;
      path.push(segment);
      return methods === undefined ? [] : [{ url: path.join(''), methods: methods.split(', ') }];
    });
}

t.test('the app serves exactly the operations of openapi.yaml, apart from the docs UI', async (t) => {
  const app = await buildTestApp(t);
  const table = await routeTable(app);
  const routes = table.filter((route) => !route.url.startsWith('/docs'));
  t.same(served(routes), declared);
  t.same(
    routes
      .filter((route) => route.methods.includes('HEAD'))
      .map((route) => `HEAD ${route.url}`)
      .sort(),
    openGets,
    'HEAD exactly on the open GETs',
  );
  t.ok(
    table.some((route) => route.url === '/docs'),
    'the docs UI is served',
  );
});

t.test('with CORS on, the only addition is the preflight route of @fastify/cors', async (t) => {
  // A CORS preflight is browser protocol, not an operation of the API: openapi.yaml does not
  // declare it, and the default app (no CORS_ORIGINS) does not serve it.
  const app = await buildTestApp(t, { corsOrigins: ['https://app.example.com'] });
  const routes = (await routeTable(app)).filter((route) => !route.url.startsWith('/docs'));
  t.same(served(routes.filter((route) => route.url === '*')), ['OPTIONS *']);
  t.same(served(routes.filter((route) => route.url !== '*')), declared);
});

t.test('every plant operation needs bearerAuth or an identity provider token, and every open one declares security: []', async (t) => {
  const document = parse(yamlText);
  t.same(document.security, [{ bearerAuth: [] }, { oidc: [] }]);
  for (const [id, operation] of Object.entries(operations)) {
    t.equal(operation.public, !operation.url.startsWith('/plants'), `${id} is ${operation.public ? 'open' : 'protected'}`);
  }
});

t.test('Swagger UI is served from this machine only', async (t) => {
  const app = await buildTestApp(t);
  const page = await inject(t, app, { url: '/docs/' });
  t.equal(page.status, 200);
  t.notMatch(page.body, /(src|href)="https?:/, 'no remote scripts or styles');
  t.match(page.headers['content-security-policy'], /script-src 'self';/, "helmet's policy");
  t.notMatch(page.headers['content-security-policy'], /https:|swagger\.io/, 'not a looser one that allows remote sources');
  const initializer = await inject(t, app, { url: '/docs/static/swagger-initializer.js' });
  t.equal(initializer.status, 200);
  t.match(initializer.body, /validatorUrl: null/, 'no call to the public validator badge');
});

t.test('the documented 400 examples are what the service answers to such a request', async (t) => {
  const document = parse(yamlText) as {
    components: { responses: Record<string, { content: { 'application/json': { example: unknown } } }> };
  };
  const example = (name: string) => document.components.responses[name]!.content['application/json'].example;
  const app = await buildTestApp(t);
  const headers = bearer(await tokenFor(app, 'alice'));
  const tooLong = JSON.stringify({ id: 1, name: 'x'.repeat(201) });
  const badPlant = await inject(t, app, {
    method: 'POST',
    url: '/plants',
    headers: { ...headers, 'content-type': 'application/json' },
    payload: tooLong,
  });
  t.same(badPlant.json(), example('BadPlant'));
  t.same((await inject(t, app, { url: '/plants?limit=5000', headers })).json(), example('BadListQuery'));
  t.same((await inject(t, app, { method: 'DELETE', url: '/plants/abc', headers })).json(), example('BadPlantId'));
});
