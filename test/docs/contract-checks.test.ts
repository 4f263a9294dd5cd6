// docs/contract-checks.md's ready-to-paste CI jobs (GitHub Actions and GitLab CI): every command in them is
// one this project has, and runs. The breaking-change gate and the conformance run run for real (against a
// test server, with the CI variables filled in); installing steps are checked as far as they can be without
// changing the machine (the package packs under the name the next step installs).
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { parse } from 'yaml';
import { projectRoot } from '../helpers/paths.js';
import { runCli, startServer } from '../helpers/process.js';
import { tempDir } from '../helpers/temp-dir.js';

const exec = promisify(execFile);
const doc = readFileSync(join(projectRoot, 'docs', 'contract-checks.md'), 'utf8');

interface Step {
  job: string;
  /** The folder the command runs in, relative to the checkout. */
  dir: string;
  command: string;
}

interface Pipeline {
  steps: Step[];
  /** The JUnit files the jobs hand to the CI system. */
  junit: string[];
}

function yamlBlock(heading: string): Record<string, any> {
  const section = doc.slice(doc.indexOf(heading));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error(`no yaml block under ${heading}`);
  return parse(block) as Record<string, any>;
}

function github(): Pipeline {
  const workflow = yamlBlock('## Jobs for GitHub Actions');
  const steps: Step[] = [];
  const junit: string[] = [];
  for (const [job, spec] of Object.entries(workflow.jobs as Record<string, { steps: Record<string, any>[] }>)) {
    for (const step of spec.steps) {
      if (typeof step.run === 'string') steps.push({ job, dir: step['working-directory'] ?? '.', command: step.run.trim() });
      if (step.uses === 'actions/upload-artifact@v4') junit.push(step.with.path as string);
    }
  }
  return { steps, junit };
}

function gitlab(): Pipeline {
  const pipeline = yamlBlock('## Jobs for GitLab CI');
  const steps: Step[] = [];
  const junit: string[] = [];
  for (const [job, spec] of Object.entries(pipeline as Record<string, { script: string[]; artifacts?: any }>)) {
    for (const line of spec.script) steps.push({ job, dir: '.', command: line });
    if (spec.artifacts?.reports?.junit) junit.push(spec.artifacts.reports.junit as string);
  }
  return { steps, junit };
}

/** Shell words: spaces split, double quotes group (the jobs use nothing else). */
const words = (command: string) => [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]!);

interface Live {
  url: string;
  token: string;
  otherToken: string;
  junitDir: string;
}

/** The CI variables, as a pipeline would have them: the test server, its tokens, and the branch compared with. */
function fill(text: string, live: Live): string {
  return text
    .replace(/origin\/(\$\{\{ github\.base_ref \}\}|\$CI_MERGE_REQUEST_TARGET_BRANCH_NAME)/g, 'HEAD')
    .replace(/\$\{\{ vars\.STAGING_URL \}\}|\$STAGING_URL/g, live.url)
    .replace(/\$\{\{ secrets\.STAGING_OTHER_TOKEN \}\}|\$STAGING_OTHER_TOKEN/g, live.otherToken)
    .replace(/\$\{\{ secrets\.STAGING_TOKEN \}\}|\$STAGING_TOKEN/g, live.token);
}

const packageJson = (dir: string) => JSON.parse(readFileSync(join(projectRoot, dir, 'package.json'), 'utf8')) as Record<string, any>;

/** Checks one command of a job; answers what was done, for the test's name. */
async function check(t: Test, step: Step, live: Live, pipeline: Pipeline): Promise<void> {
  let dir = step.dir;
  for (const part of step.command.split('&&').map((text) => text.trim())) {
    const argv = words(fill(part, live));
    const [program, ...args] = argv;
    const where = `${step.job}: ${part}`;
    if (program === 'cd') {
      dir = join(dir, args[0]!);
      t.ok(existsSync(join(projectRoot, dir)), `${where}: the folder exists`);
    } else if (program === 'git') {
      t.ok(['fetch', 'diff'].includes(args[0]!), `${where}: a git command the job needs (not run here)`);
    } else if (program === 'npm' && args[0] === 'ci') {
      t.ok(existsSync(join(projectRoot, dir, 'package-lock.json')), `${where}: there is a lockfile to install from`);
    } else if (program === 'npm' && args[0] === 'run') {
      const script = args[1]!;
      t.ok(packageJson(dir).scripts?.[script], `${where}: the script exists`);
      const result = await exec('npm', ['run', '--silent', ...args.slice(1)], { cwd: join(projectRoot, dir) }).then(
        () => 0,
        (error: unknown) => {
          const { stdout, stderr, code } = error as { code: number; stdout: string; stderr: string };
          t.comment(stdout + stderr);
          return code;
        },
      );
      t.equal(result, 0, `${where}: runs and passes`);
    } else if (program === 'npm' && args[0] === 'install' && args.includes('--global')) {
      const tarball = args.find((arg) => arg.endsWith('.tgz'))!;
      const packed = await exec('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: join(projectRoot, 'clients', 'conformance') });
      const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
      t.equal(tarball, `./clients/conformance/${filename}`, `${where}: the file npm pack writes (installed alone in test/clients/conformance/packed.test.ts)`);
    } else if (program === 'npm' && (args[0] === 'install' || args[0] === 'pack')) {
      t.ok(packageJson(dir).name === '@plant-store/conformance', `${where}: in the conformance package`);
      if (args[0] === 'pack') t.match(packageJson(dir).scripts?.prepack, /npm run build/, `${where}: packing builds it`);
      else await exec('npm', ['install', '--dry-run', ...args.slice(1)], { cwd: join(projectRoot, dir) });
    } else if (program === 'plant-store-conformance') {
      t.equal(Object.keys(packageJson('clients/conformance').bin)[0], program, `${where}: the package's bin`);
      const junit = args[args.indexOf('--junit') + 1]!;
      t.ok(pipeline.junit.includes(junit), `${where}: the job uploads the JUnit file it writes`);
      // The bin as installed (npm ci links the package's bin into node_modules/.bin), with the report in a scratch folder.
      const bin = join(projectRoot, 'node_modules', '.bin', program);
      const result = await exec(bin, args.map((arg) => (arg === junit ? join(live.junitDir, junit) : arg))).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: unknown) => error as { code: number; stdout: string },
      );
      t.equal(result.code, 0, `${where}: passes against a test server\n${result.stdout}`);
      t.ok(existsSync(join(live.junitDir, junit)), `${where}: writes its JUnit report`);
    } else if (program === 'npx' && args[0] === '--yes') {
      // A consumer's tool fetched by npx; here it is a devDependency, so it resolves without the network.
      t.ok(existsSync(join(projectRoot, 'node_modules', '.bin', args[1]!)), `${where}: ${args[1]} exists`);
      await exec(join(projectRoot, 'node_modules', '.bin', args[1]!), ['--help']);
    } else {
      t.fail(`${where}: a command this test does not know how to check; teach it, so the jobs stay runnable`);
    }
  }
}

t.test(
  'every command of the GitHub Actions and GitLab CI jobs exists and runs',
  { skip: existsSync(join(projectRoot, 'clients/conformance/dist/bin.js')) ? false : 'clients/conformance is not built: npm test builds it first' },
  async (t) => {
    const env = { DATABASE_PATH: join(tempDir(t), 'plants.db'), DATABASE_URL: '', REDIS_URL: '' };
    const server = await startServer(t, { ...env, BOOTSTRAP_TOKEN: 'off', LOG_LEVEL: 'warn', AUTH_FAILURES_PER_MINUTE: '1000' });
    const [token, otherToken] = await Promise.all(['ci-a', 'ci-b'].map(async (user) => (await runCli(['token', 'create', user], env)).stdout.trim()));
    const live = { url: server.url, token: token!, otherToken: otherToken!, junitDir: tempDir(t) };
    for (const [name, pipeline] of [
      ['GitHub Actions', github()],
      ['GitLab CI', gitlab()],
    ] as const) {
      await t.test(name, async (t) => {
        const jobs = new Set(pipeline.steps.map((step) => step.job));
        t.ok(['breaking-change-gate', 'conformance'].every((job) => jobs.has(job)), 'a breaking-change gate and a conformance job');
        t.ok(pipeline.steps.some((step) => step.command.includes('check:breaking')), 'the gate runs npm run check:breaking');
        t.ok(pipeline.junit.length > 0, 'JUnit is uploaded');
        for (const step of pipeline.steps) await check(t, step, live, pipeline);
      });
    }
  },
);
