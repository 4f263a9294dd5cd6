// clients/typescript as a frontend team gets it: packed, installed into an empty project with no
// server dependencies, type-checked, and run against a live server.
import { execFile } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { buildTestApp, tempDir, tokenFor } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';
import { projectRoot } from '../helpers/paths.js';

const run = promisify(execFile);
const clientDir = join(projectRoot, 'clients', 'typescript');
const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');

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
  const { stdout: packed } = await run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: clientDir });
  const tarball = join(work, packed.trim().split('\n').pop()!);

  const consumer = join(work, 'frontend');
  await run('mkdir', [consumer]);
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'frontend', private: true, type: 'module' }));
  const started = Date.now();
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: consumer });
  const seconds = (Date.now() - started) / 1000;
  const { stdout: du } = await run('du', ['-sk', join(consumer, 'node_modules')]);
  t.comment(`npm install of the packed client: ${seconds.toFixed(1)} s, node_modules ${(Number(du.split('\t')[0]) / 1024).toFixed(2)} MiB`);

  const installed = readdirSync(join(consumer, 'node_modules')).filter((name) => !name.startsWith('.'));
  t.same(installed.sort(), ['@plant-store', 'openapi-fetch', 'openapi-typescript-helpers'], 'the client and openapi-fetch, nothing of the server');

  writeFileSync(join(consumer, 'consumer.ts'), CONSUMER_TS);
  const check = ['--noEmit', '--strict', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--lib', 'ES2023,DOM', 'consumer.ts'];
  const { stdout: errors } = await run(process.execPath, [tsc, ...check], { cwd: consumer });
  t.equal(errors, '', 'a TypeScript consumer compiles against the installed types');

  const app = await buildTestApp(t);
  const url = await listen(app);
  writeFileSync(join(consumer, 'consumer.mjs'), CONSUMER_MJS);
  const env = { ...process.env, PLANT_STORE_URL: url, PLANT_STORE_TOKEN: await tokenFor(app, 'frontend') };
  const { stdout } = await run(process.execPath, ['consumer.mjs'], { cwd: consumer, env });
  t.same(JSON.parse(stdout), { created: { name: 'Monstera', tag: 'tropical' }, names: ['Monstera'], deleted: 204 });
});
