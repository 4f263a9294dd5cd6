// The benchmark runs Plant Store as `npm start` does: with the Node.js flags of package.json's start script.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startFlags, startScript } from '../../bench/start-flags.js';
import { projectRoot } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

t.test("the flags are npm start's own", async (t) => {
  const { scripts } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: { start: string } };
  t.equal(startScript(projectRoot), scripts.start, 'the script as package.json has it');
  const flags = startFlags(projectRoot);
  t.ok(flags.length > 0 && flags.every((flag) => flag.startsWith('--')), `flags: ${flags.join(' ')}`);
  t.equal(['node', ...flags, 'dist/src/server.js'].join(' '), scripts.start, 'together they are the start script');
});

t.test('a start script of another form stops the benchmark, naming it', async (t) => {
  const dir = tempDir(t);
  const write = (start: string) => writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { start } }));
  write('node dist/src/server.js');
  t.same(startFlags(dir), [], 'no flags');
  write('tsx src/server.ts');
  t.throws(() => startFlags(dir), /start script is not .*tsx src\/server\.ts/);
});
