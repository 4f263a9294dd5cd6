// Consumers import `@plant-store/client` and `@plant-store/client/types` (clients/typescript):
// examples/ must compile with the project's TypeScript, misuse must not, and the example
// script must really run against a live server.
import { execFile } from 'node:child_process';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { fetchChecked, tempDir } from '../helpers/app.js';
import { projectRoot } from '../helpers/paths.js';
import { runCli, startServer } from '../helpers/process.js';

const run = promisify(execFile);
const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
const examples = join(projectRoot, 'examples', 'tsconfig.json');

// exports['./client'] points into dist/: build it, so running this file alone sees today's client.
t.before(() => run('npm', ['run', 'build', '--silent'], { cwd: join(projectRoot, 'clients', 'typescript') }));

t.test('examples/ type-checks against @plant-store/client and its types', async (t) => {
  const { stdout } = await run(process.execPath, [tsc, '-p', examples], { cwd: projectRoot });
  t.equal(stdout, '');
});

t.test('a consumer that misuses the types or the client does not compile, at each misuse', async (t) => {
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
    (error: { stdout: string }) => error,
  );
  t.ok(failure, 'tsc fails');
  const output = failure?.stdout ?? '';
  const failing = new Set([...output.matchAll(/misuse\.tmp\.ts\((\d+),\d+\): error/g)].map((match) => Number(match[1])));
  t.same([...failing].sort((a, b) => a - b), [4, 5, 6, 7, 8, 9, 10, 11], output);
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
    'created 1: Fern',
    'created 9223372036854775807: Monstera',
    'conflict: 409 A plant with id 1 already exists with a different name or tag; delete it first or use another id.',
    'listed: Fern',
    'listed: Monstera (tropical)',
    'deleted 1: 204',
  ]);
  const auth = { headers: { authorization: `Bearer ${token}` } };
  t.same((await fetchChecked(t, server.url, '/plants', auth)).json(), [{ name: 'Monstera', tag: 'tropical' }]);
  const exact = await fetchChecked(t, server.url, '/plants/9223372036854775807', { ...auth, method: 'DELETE' });
  t.equal(exact.status, 204, 'the id arrived exactly');
});
