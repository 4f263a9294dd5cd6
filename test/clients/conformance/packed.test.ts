// @plant-store/conformance as a consumer gets it: packed, installed into an empty project with nothing
// else, it adds a handful of pure-JavaScript packages (no native build, none of the server's), and its bin
// checks a live deployment against the openapi.yaml it ships.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { projectRoot } from '../../helpers/paths.js';
import { runCli, startServer } from '../../helpers/process.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { runArgs } from './run-conformance.js';

const run = promisify(execFile);
const packageDir = join(projectRoot, 'clients', 'conformance');

/** Every package directory under node_modules, nested ones too (`@scope/name`). */
function packagesIn(modules: string): string[] {
  if (!existsSync(modules)) return [];
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name]))
    .flatMap((name) => [name, ...packagesIn(join(modules, name, 'node_modules')).map((inner) => `${name} > ${inner}`)]);
}

t.test(
  'the packed package installs alone: few packages, no native build, and its bin checks a live deployment',
  {
    skip: existsSync(join(packageDir, 'dist', 'bin.js'))
      ? false
      : 'clients/conformance is not built: npm test builds it first (npm run build)',
  },
  async (t) => {
    const work = tempDir(t);
    // --ignore-scripts: packs the build npm test made (prepack would build it again, under other tests' feet).
    const { stdout: packed } = await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', work], { cwd: packageDir });
    const tarball = join(work, packed.trim().split('\n').pop()!);
    const { stdout: listing } = await run('tar', ['tzf', tarball]);
    t.ok(listing.split('\n').includes('package/dist/openapi.yaml'), 'it ships its copy of openapi.yaml');
    t.ok(listing.split('\n').includes('package/LICENSE'), 'and the MIT license its package.json names');
    t.notOk(/package\/src\//.test(listing), 'and no sources');

    const consumer = join(work, 'pipeline');
    await run('mkdir', [consumer]);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'pipeline', private: true }));
    const started = Date.now();
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: consumer });
    const seconds = (Date.now() - started) / 1000;
    const modules = join(consumer, 'node_modules');
    const installed = packagesIn(modules).sort();
    t.same(
      installed,
      ['@plant-store/conformance', 'ajv', 'fast-deep-equal', 'fast-uri', 'json-schema-traverse', 'require-from-string', 'yaml'],
      'the package, Ajv (with its four small dependencies) and yaml: none of the server',
    );
    for (const name of installed) {
      const manifest = JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')) as {
        scripts?: Record<string, string>;
        gypfile?: boolean;
      };
      const scripts = Object.keys(manifest.scripts ?? {}).filter((script) => ['preinstall', 'install', 'postinstall'].includes(script));
      t.same(scripts, [], `${name} runs nothing at install`);
      t.notOk(manifest.gypfile === true || existsSync(join(modules, name, 'binding.gyp')), `${name} builds nothing native`);
    }
    const { stdout: du } = await run('du', ['-sk', modules]);
    t.comment(
      `npm install of the packed conformance package: ${installed.length} packages, node_modules ${(Number(du.split('\t')[0]) / 1024).toFixed(1)} MiB, tarball ${(readFileSync(tarball).length / 1024).toFixed(0)} KiB, ${seconds.toFixed(1)} s`,
    );

    const databasePath = join(tempDir(t), 'plants.db');
    const env = { DATABASE_PATH: databasePath, DATABASE_URL: '', REDIS_URL: '' };
    const server = await startServer(t, { ...env, BOOTSTRAP_TOKEN: 'off', LOG_LEVEL: 'warn' });
    const [token, otherToken] = await Promise.all(
      ['alice', 'bob'].map(async (user) => (await runCli(['token', 'create', user], env)).stdout.trim()),
    );
    const bin = join(modules, '.bin', 'plant-store-conformance');
    const result = await run(bin, runArgs(server.url, { token: token!, otherToken: otherToken! }), { cwd: consumer }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: unknown) => error as { code: number; stdout: string },
    );
    t.equal(result.code, 0, result.stdout);
    t.match(result.stdout, `to ${join(modules, '@plant-store', 'conformance', 'dist', 'openapi.yaml')} (info.version`);
    t.equal(
      readFileSync(join(modules, '@plant-store', 'conformance', 'dist', 'openapi.yaml'), 'utf8'),
      readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8'),
      "the shipped contract is the project's",
    );
    t.match(result.stdout, /^\d+ passed, 0 failed, \d+ skipped$/m);
  },
);
