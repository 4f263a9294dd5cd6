// A consumer imports `plant-store/types` through package.json exports; the project's
// TypeScript must accept it, and must reject misuse.
import { execFile } from 'node:child_process';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { projectRoot } from '../helpers/paths.js';

const run = promisify(execFile);
const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');

t.test('examples/ type-checks against plant-store/types', async (t) => {
  const { stdout } = await run(process.execPath, [tsc, '-p', join(projectRoot, 'examples', 'tsconfig.json')], { cwd: projectRoot });
  t.equal(stdout, '');
});

t.test('a consumer that misuses the types does not compile', async (t) => {
  const file = join(projectRoot, 'examples', 'misuse.tmp.ts');
  writeFileSync(file, "import type { components } from 'plant-store/types';\nexport const p: components['schemas']['Plant'] = { name: 'x', colour: 'green' };\n");
  t.teardown(() => rmSync(file, { force: true }));
  const failure = await run(process.execPath, [tsc, '-p', join(projectRoot, 'examples', 'tsconfig.json')], { cwd: projectRoot }).then(
    () => undefined,
    (error: { stdout: string }) => error,
  );
  t.ok(failure, 'tsc fails');
  t.match(failure?.stdout ?? '', /colour/);
});
