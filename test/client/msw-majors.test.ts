// @plant-store/client beside each msw major its peer range accepts (2 and 3), as a frontend team gets it: packed, installed
// without flags into a project of its own, `npm ls` clean; there the mock passes the conformance run, the query hooks pass
// their scenario in React 19 on jsdom, and the README's MSW example type-checks and answers.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import ts from 'typescript';
import { projectRoot } from '../helpers/paths.js';
import { lineIndependent } from '../helpers/node-line.js';
import { finished } from '../helpers/process.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const clientDir = join(projectRoot, 'clients', 'typescript');
const conformanceDir = join(projectRoot, 'clients', 'conformance');
const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');

/** The version this project tests with, so each consumer differs from the suite in msw alone (and npm's cache has it). */
const ours = (name: string) =>
  (JSON.parse(readFileSync(join(projectRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** The README's MSW example, as written: it must run unchanged on both majors. */
function readmeMockExample(): string {
  const readme = readFileSync(join(clientDir, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!).find((code) => code.includes('setupServer('));
  if (block === undefined) throw new Error('clients/typescript/README.md has no ts block with setupServer(');
  return block;
}

/** The hooks scenario the suite runs against the mock (react-query-mock.test.ts), copied into the consumer so it imports the consumer's packages. */
function copyScenario(consumer: string): void {
  for (const name of ['react-query-scenario', 'react-dom-globals']) {
    const source = readFileSync(join(projectRoot, 'test', 'client', `${name}.ts`), 'utf8');
    const compilerOptions = { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 };
    writeFileSync(join(consumer, `${name}.js`), ts.transpileModule(source, { compilerOptions }).outputText);
  }
}

/** A tap test file in the consumer: tap by its URL in this project, everything else from the consumer's node_modules. */
const hooksDriver = (major: number) => `import './react-dom-globals.js';
import t from ${JSON.stringify(import.meta.resolve('tap'))};
import { setupServer } from 'msw/node';
import { plantStoreHandlers } from '@plant-store/client/mock';
import { hooksScenario } from './react-query-scenario.js';

t.test('hooks against the mock', async (t) => {
  const baseUrl = 'http://plant-store.mock';
  const server = setupServer(...plantStoreHandlers({ baseUrl, tokens: ['pst_alice', 'pst_bob'] }));
  server.listen({ ${major === 2 ? 'onUnhandledRequest' : 'onUnhandledFrame'}: 'error' }); // msw 3's name for the option
  t.teardown(() => server.close());
  await hooksScenario(t, baseUrl, 'pst_alice');
});
`;

/** Starts the consumer's `plant-store-mock` on a free port; answers its URL. */
async function startMock(t: Test, consumer: string): Promise<{ url: string; stderr: () => string }> {
  const bin = join(consumer, 'node_modules', '.bin', 'plant-store-mock');
  const mock = spawn(bin, ['--port', '0', '--token', 'pst_mock_alice', '--token', 'pst_mock_bob'], {
    cwd: consumer,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => void mock.kill('SIGTERM'));
  let errors = '';
  mock.stderr.on('data', (chunk) => (errors += String(chunk)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    mock.stdout.on('data', (chunk) => {
      out += String(chunk);
      const found = /on (http:\/\/127\.0\.0\.1:\d+) /.exec(out)?.[1];
      if (found !== undefined) resolve(found);
    });
    mock.on('exit', (code) => reject(new Error(`plant-store-mock exited (${code}) before listening: ${errors}`)));
  });
  return { url, stderr: () => errors };
}

const built = existsSync(join(clientDir, 'dist', 'mock', 'bin.js')) && existsSync(join(conformanceDir, 'dist', 'bin.js'));
const skip = built ? false : 'the clients are not built: npm test builds them first (npm run build)';

t.test('the packed client installs beside msw 2 and msw 3, and its mock and hooks work on each', { skip }, async (t) => {
  const work = tempDir(t);
  // --ignore-scripts: packs the build npm test made (prepack would build it again, under other tests' feet).
  const pack = async (dir: string) => {
    const { stdout } = await run('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', work], { cwd: dir });
    return join(work, stdout.trim().split('\n').pop()!);
  };
  const [clientTarball, conformanceTarball] = await Promise.all([pack(clientDir), pack(conformanceDir)]);

  for (const major of [2, 3]) {
    // msw 2 runs on every line in the suite's own mock tests (mock-conformance, react-query-mock); msw 3, which needs
    // Node 22.12 or later, only here. What msw 2 adds here, the packed install, npm decides, not the Node line.
    const skip = major === 2 && lineIndependent("msw 2 on this Node line is the mock tests' (mock-conformance, react-query-mock)");
    await t.test(`msw ${major}`, { skip }, async (t) => {
      const consumer = join(work, `frontend-msw-${major}`);
      mkdirSync(consumer);
      const manifest = {
        name: `frontend-msw-${major}`,
        private: true,
        type: 'module',
        dependencies: Object.fromEntries([
          ['@plant-store/client', `file:${clientTarball}`],
          ...['@tanstack/react-query', 'openapi-react-query', 'react', 'react-dom'].map((name) => [name, ours(name)]),
        ]),
        devDependencies: Object.fromEntries([
          ['@plant-store/conformance', `file:${conformanceTarball}`],
          ['msw', `^${major}.0.0`],
          ...['ajv', 'jsdom', '@testing-library/react'].map((name) => [name, ours(name)]),
        ]),
      };
      writeFileSync(join(consumer, 'package.json'), JSON.stringify(manifest, null, 2));

      // No --legacy-peer-deps, no --force: the peer range must accept this msw as it is.
      const started = Date.now();
      await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: consumer });
      t.comment(`npm install beside msw ${major}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      const ls = await run('npm', ['ls', '--all'], { cwd: consumer }).then(
        () => ({ code: 0, stdout: '' }),
        (error: unknown) => error as { code: number; stdout: string },
      );
      t.equal(ls.code, 0, 'npm ls --all: no missing, invalid or extraneous package', { output: ls.stdout });
      const msw = JSON.parse(readFileSync(join(consumer, 'node_modules', 'msw', 'package.json'), 'utf8')) as { version: string };
      t.equal(Number(msw.version.split('.')[0]), major, `msw ${msw.version} is installed`);

      // The stand-alone mock, checked by the contract's conformance run, both as the consumer installed them.
      const mock = await startMock(t, consumer);
      const conformance = await finished(
        spawn(
          join(consumer, 'node_modules', '.bin', 'plant-store-conformance'),
          ['--base-url', mock.url, '--token', 'pst_mock_alice', '--other-token', 'pst_mock_bob'],
          { cwd: consumer, stdio: ['ignore', 'pipe', 'pipe'] },
        ),
      );
      t.equal(conformance.code, 0, 'plant-store-conformance passes against plant-store-mock', {
        output: conformance.code === 0 ? undefined : conformance.stdout + conformance.stderr,
      });
      t.match(conformance.stdout, /^\d+ passed, 0 failed, \d+ skipped$/m);
      t.same(
        conformance.stdout.split('\n').filter((line) => line.startsWith('SKIP') && !/^SKIP\s+\S+ \S+\s+declared (429|500|503) /.test(line)),
        [],
        'nothing skipped but the 429, 500 and 503 no client provokes (as against msw 2 in mock-conformance.test.ts)',
      );
      t.equal(mock.stderr(), '', 'the mock wrote nothing to stderr');

      // The hooks in React 19 on jsdom against the in-process mock (setupServer), the suite's own scenario.
      copyScenario(consumer);
      writeFileSync(join(consumer, 'hooks.test.js'), hooksDriver(major));
      await t.spawn(process.execPath, ['hooks.test.js'], { cwd: consumer }, `the query hooks against the mock on msw ${major}`);

      // The README's example, verbatim, then one request through it.
      const example = `${readmeMockExample()}
const answer = await fetch('http://localhost:3000/plants', { headers: { authorization: 'Bearer alice-token' } });
console.log(answer.status, await answer.text());
server.close();
`;
      writeFileSync(join(consumer, 'readme-mock.ts'), example);
      const check = [
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module',
        'NodeNext',
        '--moduleResolution',
        'NodeNext',
        '--target',
        'ES2022',
        '--lib',
        'ES2023,DOM',
      ];
      const { stdout: errors } = await run(process.execPath, [tsc, ...check, 'readme-mock.ts'], { cwd: consumer });
      t.equal(errors, '', "the README's MSW example type-checks against this msw");
      const { stdout } = await run(process.execPath, ['--import', import.meta.resolve('tsx'), 'readme-mock.ts'], { cwd: consumer });
      t.equal(stdout, '200 []\n', "and answers alice's empty list");
    });
  }
});
