// Node 22.14+, 24 and 26 run Plant Store; an older Node is refused with one line before anything loads.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { unsupportedNodeMessage } from '../../src/platform/refuse-unsupported-node.js';
import { projectRoot } from '../helpers/paths.js';

t.test('the lines in use today are accepted, older ones refused', async (t) => {
  for (const version of ['v22.14.0', 'v22.23.3', 'v23.0.0', 'v24.21.0', 'v26.10.0', 'v30.1.2']) {
    t.equal(unsupportedNodeMessage(version), undefined, version);
  }
  for (const version of ['v22.13.1', 'v22.0.0', 'v20.20.2', 'v18.20.8', 'v8.0.0', 'nonsense']) {
    t.match(unsupportedNodeMessage(version), `needs Node 22.14 or newer (22.14+, 24 or 26), but this is Node ${version}`, version);
  }
});

t.test('this Node is a supported one', async (t) => {
  t.equal(unsupportedNodeMessage(process.version), undefined, process.version);
});

/** An installed Node older than 22.14 (CI sets PLANT_STORE_UNSUPPORTED_NODE to the machine's Node 20). */
function unsupportedNode(): string | undefined {
  for (const candidate of [process.env.PLANT_STORE_UNSUPPORTED_NODE, '/usr/bin/node', '/usr/local/bin/node']) {
    if (candidate === undefined || candidate === '' || !existsSync(candidate)) continue;
    const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
    if (unsupportedNodeMessage(version) !== undefined) return candidate;
  }
  return undefined;
}

const oldNode = unsupportedNode();
const skip =
  oldNode === undefined && process.env.CI !== 'true'
    ? 'no Node older than 22.14 on this machine (set PLANT_STORE_UNSUPPORTED_NODE to one)'
    : false;

t.test('npm start and npx plant-store on an old Node stop at once, in one line', { skip }, async (t) => {
  t.ok(oldNode, 'CI=true needs an unsupported Node to try (PLANT_STORE_UNSUPPORTED_NODE)');
  const version = execFileSync(oldNode!, ['--version'], { encoding: 'utf8' }).trim();
  // The built entry points, as `npm start` and the `plant-store` bin run them.
  for (const entry of [['dist/src/server.js'], ['dist/src/cli.js', 'serve'], ['dist/src/cli.js', 'token', 'list']]) {
    t.ok(existsSync(join(projectRoot, entry[0]!)), `${entry[0]} is built`);
    const run = spawnSync(oldNode!, entry, { cwd: projectRoot, encoding: 'utf8', env: { ...process.env, DATABASE_PATH: ':memory:' } });
    t.equal(run.status, 1, `${entry.join(' ')}: exit code 1`);
    t.equal(run.signal, null, 'no crash');
    t.equal(run.stdout, '');
    t.equal(run.stderr, `${unsupportedNodeMessage(version)}\n`, 'one line, naming both versions');
  }
});
