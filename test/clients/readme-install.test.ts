// Every command in the clients' READMEs (their sh blocks) runs as written, where its comment says: in a copy of this checkout
// (its node_modules linked in place of `npm ci`), in fresh frontend projects beside it, and against a registry of the team's own
// (test/helpers/npm-registry.ts) for the publish lines. Only stand-ins go into the commands: the registry's URL, a live Plant
// Store's URL, a free port.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { startNpmRegistry } from '../helpers/npm-registry.js';
import { projectRoot } from '../helpers/paths.js';
import { finished, freePort, runCli, startServer } from '../helpers/process.js';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);

/** Each command of the README's sh blocks (a trailing backslash continues it), without its comment. */
function readmeCommands(file: string): string[] {
  const readme = readFileSync(join(projectRoot, file), 'utf8');
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((match) =>
    match[1]!
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(Boolean),
  );
}

/** The files of this checkout as git sees them (tracked, or new and not ignored), or undefined outside a git work tree. */
function checkoutFiles(): string[] | undefined {
  try {
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: projectRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return listed.split('\0').filter((path) => path !== '' && existsSync(join(projectRoot, path)));
  } catch {
    return undefined;
  }
}

const files = checkoutFiles();
// npm, the READMEs and the packages' files decide the outcome, not the Node line: CI runs it on Node 24 only.
const skip =
  process.env.PLANT_STORE_TEST_README_INSTALL === '0'
    ? 'PLANT_STORE_TEST_README_INSTALL=0: the README install commands are off for this run'
    : files
      ? false
      : 'not a git work tree: the checkout to copy is not known';

t.test(
  "the clients' READMEs install as they say: tarball, checkout (file:), own registry, then the hooks' and the mock's peers",
  { skip },
  async (t) => {
    const work = tempDir(t);
    const checkout = join(work, 'plant-store');
    for (const path of files!) cpSync(join(projectRoot, path), join(checkout, path));
    symlinkSync(join(projectRoot, 'node_modules'), join(checkout, 'node_modules'));
    const projects = Object.fromEntries(
      ['frontend', 'frontend-linked', 'frontend-registry'].map((name) => {
        mkdirSync(join(work, name));
        writeFileSync(join(work, name, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
        return [name, join(work, name)];
      }),
    ) as Record<'frontend' | 'frontend-linked' | 'frontend-registry', string>;

    // `npm login` to the team's registry writes its token into the user's .npmrc; this one is the test's alone.
    const registry = await startNpmRegistry(t);
    const npmrc = join(work, 'npmrc');
    writeFileSync(npmrc, `${registry.url.replace(/^http:/, '')}:_authToken=${registry.token}\n`);
    const env = { ...process.env, NPM_CONFIG_USERCONFIG: npmrc, npm_config_audit: 'false', npm_config_fund: 'false' };
    const globalPrefix = (prefix: string) => ({ ...env, npm_config_prefix: join(work, prefix) });

    const databasePath = join(tempDir(t), 'plants.db');
    const serverEnv = { DATABASE_PATH: databasePath, DATABASE_URL: '', REDIS_URL: '' };
    const server = await startServer(t, { ...serverEnv, BOOTSTRAP_TOKEN: 'off', LOG_LEVEL: 'warn' });
    const [token, otherToken] = await Promise.all(
      ['alice', 'bob'].map(async (user) => (await runCli(['token', 'create', user], serverEnv)).stdout.trim()),
    );
    const mockPort = await freePort();
    const stand = (command: string) =>
      command
        .replaceAll('https://npm.example.internal/', registry.url)
        .replaceAll('https://staging.example.com', server.url)
        .replace('--port 4010', `--port ${mockPort}`);

    const clientDir = join(checkout, 'clients', 'typescript');
    const conformanceDir = join(checkout, 'clients', 'conformance');
    const installed = (project: string, name: string) =>
      JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')) as { name: string; version: string };
    /** Where each README command runs, with what, and what it must have done. */
    const steps: Record<string, { cwd: string; env?: NodeJS.ProcessEnv; check(): Promise<void> | void }> = {
      'cd clients/typescript && npm pack': {
        cwd: checkout,
        check: () => void t.ok(existsSync(join(clientDir, 'plant-store-client-1.0.0.tgz')), 'npm pack wrote plant-store-client-1.0.0.tgz'),
      },
      'npm install ../plant-store/clients/typescript/plant-store-client-1.0.0.tgz': {
        cwd: projects.frontend,
        check: () => void t.equal(installed(projects.frontend, '@plant-store/client').version, '1.0.0', 'the tarball is installed'),
      },
      'npm config set install-links true --location project': {
        cwd: projects['frontend-linked'],
        check: () => void t.match(readFileSync(join(projects['frontend-linked'], '.npmrc'), 'utf8'), 'install-links=true'),
      },
      'npm install ../plant-store/clients/typescript': {
        cwd: projects['frontend-linked'],
        check: async () => {
          const at = join(projects['frontend-linked'], 'node_modules', '@plant-store', 'client');
          t.notOk(lstatSync(at).isSymbolicLink(), 'the checkout is installed as a copy, not a link');
          t.ok(existsSync(join(at, 'dist', 'index.js')), 'with its build');
          t.match(readFileSync(join(projects['frontend-linked'], 'package.json'), 'utf8'), '"file:../plant-store/clients/typescript"');
          await run('npm', ['ci'], { cwd: projects['frontend-linked'], env });
          t.notOk(lstatSync(at).isSymbolicLink(), 'and a later npm ci copies it again, the .npmrc says so');
        },
      },
      'cd clients/typescript && npm publish --registry https://npm.example.internal/': {
        cwd: checkout,
        check: () => void t.ok(registry.requests.includes('PUT /@plant-store/client 201'), 'the registry got the client'),
      },
      'npm config set @plant-store:registry https://npm.example.internal/ --location project': {
        cwd: projects['frontend-registry'],
        check: () =>
          void t.match(readFileSync(join(projects['frontend-registry'], '.npmrc'), 'utf8'), `@plant-store:registry=${registry.url}`),
      },
      'npm install @plant-store/client': {
        cwd: projects['frontend-registry'],
        check: () => {
          t.equal(installed(projects['frontend-registry'], '@plant-store/client').version, '1.0.0', 'installed by name');
          t.ok(
            registry.requests.includes('GET /@plant-store/client 200'),
            'from the team registry (npm may take the tarball itself from its cache: the same bytes as the packed one)',
          );
        },
      },
      'npm install @tanstack/react-query openapi-react-query react react-dom': {
        cwd: projects.frontend,
        check: () => void t.ok(installed(projects.frontend, 'openapi-react-query'), "the hooks' peers are installed"),
      },
      'npm install --save-dev msw ajv': {
        cwd: projects.frontend,
        check: () => void t.ok(installed(projects.frontend, 'msw'), "the mock's peers are installed"),
      },
      'npx plant-store-mock --port 4010 --token dev-token': { cwd: projects.frontend, check: () => undefined },
      'npx plant-store-mock --port 4010 --token dev-token --cors-origin http://localhost:5173 --cors-origin http://localhost:6006': {
        cwd: projects.frontend,
        check: () => undefined,
      },
      'cd clients/conformance && npm pack': {
        cwd: checkout,
        check: () =>
          void t.ok(
            existsSync(join(conformanceDir, 'plant-store-conformance-1.0.0.tgz')),
            'npm pack wrote plant-store-conformance-1.0.0.tgz',
          ),
      },
      'npm install --global ./plant-store-conformance-1.0.0.tgz': {
        cwd: conformanceDir,
        env: globalPrefix('global-tarball'),
        check: () =>
          void t.ok(existsSync(join(work, 'global-tarball', 'bin', 'plant-store-conformance')), 'the command is installed globally'),
      },
      'cd clients/conformance && npm publish --registry https://npm.example.internal/': {
        cwd: checkout,
        check: () => void t.ok(registry.requests.includes('PUT /@plant-store/conformance 201'), 'the registry got the conformance package'),
      },
      'npm install --global @plant-store/conformance --@plant-store:registry=https://npm.example.internal/': {
        cwd: work,
        env: globalPrefix('global-registry'),
        check: () =>
          void t.ok(
            existsSync(join(work, 'global-registry', 'bin', 'plant-store-conformance')),
            'installed globally from the team registry',
          ),
      },
      'plant-store-conformance --base-url https://staging.example.com --token "$PLANT_STORE_TOKEN" --other-token "$PLANT_STORE_OTHER_TOKEN" --junit conformance.xml':
        {
          cwd: work,
          env: {
            ...env,
            PATH: `${join(work, 'global-registry', 'bin')}:${process.env.PATH ?? ''}`,
            PLANT_STORE_TOKEN: token!,
            PLANT_STORE_OTHER_TOKEN: otherToken!,
          },
          check: () => void t.ok(existsSync(join(work, 'conformance.xml')), 'the JUnit report is written'),
        },
    };

    const commands = ['clients/typescript/README.md', 'clients/conformance/README.md'].flatMap(readmeCommands);
    t.same(commands, Object.keys(steps), 'the READMEs hold these commands, each run below');

    for (const command of commands) {
      const step = steps[command];
      if (step === undefined) continue;
      if (command.startsWith('npx plant-store-mock')) {
        // It serves until stopped: wait for its line, ask it something, stop it (its own process group, as a terminal would).
        const mock = spawn('bash', ['-c', stand(command)], { cwd: step.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        t.teardown(() => {
          if (mock.exitCode === null && mock.signalCode === null) process.kill(-mock.pid!, 'SIGKILL');
        });
        let listening = () => {};
        const ready = new Promise<void>((resolve) => (listening = resolve));
        const ended = finished(mock, (out) => {
          if (out.includes(`http://127.0.0.1:${mockPort}`)) listening();
        });
        await Promise.race([ready, ended]);
        const answer = await fetch(`http://127.0.0.1:${mockPort}/plants`, { headers: { authorization: 'Bearer dev-token' } });
        t.same([answer.status, await answer.json()], [200, []], `${command}: the mock answers dev-token's empty list`);
        // With --cors-origin, a page of that origin may call it; without, none may (as the service with CORS_ORIGINS).
        for (const origin of ['http://localhost:5173', 'http://localhost:6006']) {
          const preflight = await fetch(`http://127.0.0.1:${mockPort}/plants`, {
            method: 'OPTIONS',
            headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
          });
          const allowed = command.includes(`--cors-origin ${origin}`) ? origin : null;
          t.equal(
            preflight.headers.get('access-control-allow-origin'),
            allowed,
            `${command}: ${origin} ${allowed ? 'allowed' : 'not allowed'}`,
          );
        }
        process.kill(-mock.pid!, 'SIGTERM');
        t.equal((await ended).stderr, '', 'and stops on SIGTERM, quietly');
        continue;
      }
      const result = await run('bash', ['-c', stand(command)], { cwd: step.cwd, env: step.env ?? env }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: unknown) => error as { code: number; stdout: string; stderr: string },
      );
      t.equal(result.code, 0, command, { output: result.code === 0 ? undefined : result.stdout + result.stderr });
      await step.check();
    }

    // The frontend that took the client from the tarball, then the peers of the hooks and the mock, has nothing missing or invalid.
    const ls = await run('npm', ['ls', '--all'], { cwd: projects.frontend, env }).then(
      () => ({ code: 0, stdout: '' }),
      (error: unknown) => error as { code: number; stdout: string },
    );
    t.equal(ls.code, 0, 'npm ls --all in the frontend project', { output: ls.stdout });
  },
);
