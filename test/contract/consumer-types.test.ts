// Consumers import `@plant-store/client` and `@plant-store/client/types` (clients/typescript):
// examples/ must compile with the project's TypeScript, misuse must not, the example script must
// really run against a live server, and the packed package must install and work on its own.
import { execFile } from 'node:child_process';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { buildTestApp, fetchChecked, tempDir, tokenFor } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';
import { lineIndependent } from '../helpers/node-line.js';
import { projectRoot } from '../helpers/paths.js';
import { runCli, startServer } from '../helpers/process.js';

const run = promisify(execFile);
const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
const examples = join(projectRoot, 'examples', 'tsconfig.json');

const clientDir = join(projectRoot, 'clients', 'typescript');

// The package points into clients/typescript/dist: build it once, here, so running this file alone
// sees today's client and no two tests rebuild it at the same time.
t.before(() => run('npm', ['run', 'build', '--silent'], { cwd: clientDir }));

// The compiler's verdict on examples/ and on each misuse is the same on every Node line.
const compilerOnly = lineIndependent('the TypeScript compiler gives the same verdict on every Node line');

t.test('examples/ type-checks against @plant-store/client and its types', { skip: compilerOnly }, async (t) => {
  const { stdout } = await run(process.execPath, [tsc, '-p', examples], { cwd: projectRoot });
  t.equal(stdout, '');
});

t.test('a consumer that misuses the types or the client does not compile, at each misuse', { skip: compilerOnly }, async (t) => {
  const file = join(projectRoot, 'examples', 'misuse.tmp.ts');
  const lines = [
    "import type { components } from '@plant-store/client/types';",
    "import { createPlantStoreClient } from '@plant-store/client';",
    "const client = createPlantStoreClient({ baseUrl: 'http://127.0.0.1:3000', token: 'pst_x' });",
    "export const p: components['schemas']['Plant'] = { name: 'x', colour: 'green' };",
    "export const stringId = client.POST('/plants', { body: { id: '1', name: 'x' } });",
    "export const noId = client.POST('/plants', { body: { name: 'x' } });",
    "export const unknownPath = client.GET('/plant');",
    "export const noPathId = client.DELETE('/plants/{id}');",
    "export const stringLimit = client.allPlants({ limit: '10' });",
    "export const noCode = client.GET('/plants').then(({ error }) => error?.code);",
    "export const noToken = createPlantStoreClient({ baseUrl: '' });",
  ];
  writeFileSync(file, lines.join('\n') + '\n');
  t.teardown(() => rmSync(file, { force: true }));
  const failure = await run(process.execPath, [tsc, '-p', examples], { cwd: projectRoot }).then(
    () => undefined,
    (error: unknown) => error as { stdout: string },
  );
  t.ok(failure, 'tsc fails');
  const output = failure?.stdout ?? '';
  const failing = new Set([...output.matchAll(/misuse\.tmp\.ts\((\d+),\d+\): error/g)].map((match) => Number(match[1])));
  t.same(
    [...failing].sort((a, b) => a - b),
    [4, 5, 6, 7, 8, 9, 10, 11],
    output,
  );
  t.match(output, /colour/);
});

t.test('the example script runs against a live server', async (t) => {
  const databasePath = join(tempDir(t), 'plants.db');
  const token = (await runCli(['token', 'create', 'example'], { DATABASE_PATH: databasePath })).stdout.trim();
  const server = await startServer(t, { DATABASE_PATH: databasePath });
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(projectRoot, 'examples', 'client-script.ts')], {
    cwd: projectRoot,
    env: { ...process.env, PLANT_STORE_URL: server.url, PLANT_STORE_TOKEN: token },
  });
  t.same(stdout.trim().split('\n'), [
    'created 1: Fern at /plants/1',
    'created 9223372036854775807: Monstera at /plants/9223372036854775807',
    'conflict: 409 A plant with id 1 already exists with a different name or tag; delete it first or use another id.',
    'listed: Fern',
    'listed: Monstera (tropical)',
    'id 1: Fern',
    'id 9223372036854775807: Monstera',
    'deleted 1: 204',
  ]);
  const auth = { headers: { authorization: `Bearer ${token}` } };
  t.same((await fetchChecked(t, server.url, '/plants', auth)).json(), [{ name: 'Monstera', tag: 'tropical' }]);
  const exact = await fetchChecked(t, server.url, '/plants/9223372036854775807', { ...auth, method: 'DELETE' });
  t.equal(exact.status, 204, 'the id arrived exactly');
});

const CONSUMER_TS = `import { createPlantStoreClient, type Plant } from '@plant-store/client';
import type { components } from '@plant-store/client/types';
const api = createPlantStoreClient({ baseUrl: 'http://127.0.0.1:3000', token: 'pst_x' });
export const created = api.POST('/plants', { body: { id: 9223372036854775807n, name: 'Monstera' } });
export const plant: Plant = { name: 'Fern' };
export const error: components['schemas']['Error'] = { error: 404, message: 'none' };
`;

const CONSUMER_MJS = `import { createPlantStoreClient } from '@plant-store/client';
const api = createPlantStoreClient({ baseUrl: process.env.PLANT_STORE_URL, token: process.env.PLANT_STORE_TOKEN });
const created = await api.POST('/plants', { body: { id: 9223372036854775807n, name: 'Monstera', tag: 'tropical' } });
const names = [];
for await (const plant of api.allPlants({ limit: 1 })) names.push(plant.name);
const deleted = await api.DELETE('/plants/{id}', { params: { path: { id: 9223372036854775807n } } });
console.log(JSON.stringify({ created: created.data, names, deleted: deleted.response.status }));
`;

t.test('the packed client installs alone, type-checks and works against a live server', async (t) => {
  const work = tempDir(t);
  // --ignore-scripts: packs the build made above (t.before) instead of building it again.
  const { stdout: packed } = await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', work], { cwd: clientDir });
  const tarball = join(work, packed.trim().split('\n').pop()!);
  const { stdout: listing } = await run('tar', ['tzf', tarball]);
  t.ok(listing.split('\n').includes('package/LICENSE'), 'it ships the MIT license its package.json names');

  const consumer = join(work, 'frontend');
  await run('mkdir', [consumer]);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'frontend', private: true, type: 'module' }));
  const started = Date.now();
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: consumer });
  const seconds = (Date.now() - started) / 1000;
  const { stdout: du } = await run('du', ['-sk', join(consumer, 'node_modules')]);
  t.comment(`npm install of the packed client: ${seconds.toFixed(1)} s, node_modules ${(Number(du.split('\t')[0]) / 1024).toFixed(2)} MiB`);

  const installed = readdirSync(join(consumer, 'node_modules')).filter((name) => !name.startsWith('.'));
  t.same(
    installed.sort(),
    ['@plant-store', 'openapi-fetch', 'openapi-typescript-helpers'],
    'the client and openapi-fetch, nothing of the server',
  );

  writeFileSync(join(consumer, 'consumer.ts'), CONSUMER_TS);
  const check = [
    '--noEmit',
    '--strict',
    '--module',
    'NodeNext',
    '--moduleResolution',
    'NodeNext',
    '--target',
    'ES2022',
    '--lib',
    'ES2023,DOM',
    'consumer.ts',
  ];
  const { stdout: errors } = await run(process.execPath, [tsc, ...check], { cwd: consumer });
  t.equal(errors, '', 'a TypeScript consumer compiles against the installed types');

  const app = await buildTestApp(t);
  const url = await listen(app);
  writeFileSync(join(consumer, 'consumer.mjs'), CONSUMER_MJS);
  const env = { ...process.env, PLANT_STORE_URL: url, PLANT_STORE_TOKEN: await tokenFor(app, 'frontend') };
  const { stdout } = await run(process.execPath, ['consumer.mjs'], { cwd: consumer, env });
  t.same(JSON.parse(stdout), { created: { name: 'Monstera', tag: 'tropical' }, names: ['Monstera'], deleted: 204 });

  // The mock's peers are not installed here: its command says which to install instead of a module-resolution stack.
  const mock = await run(process.execPath, [join(consumer, 'node_modules', '.bin', 'plant-store-mock'), '--port', '0'], {
    cwd: consumer,
  }).then(
    () => ({ code: 0, stderr: '' }),
    (error: unknown) => error as { code: number; stderr: string },
  );
  t.equal(mock.code, 2, 'plant-store-mock without msw: exit 2');
  t.equal(mock.stderr, 'plant-store-mock: it needs msw, an optional peer of @plant-store/client: npm install --save-dev msw ajv\n');
});
