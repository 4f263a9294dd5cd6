// The suite's own bookkeeping: the PostgreSQL leg's file list is complete and current.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';
import { projectRoot } from './helpers/paths.js';
import { storeSpecificTests } from './helpers/store-specific.js';

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative(projectRoot, path)] : [];
  });
}

t.test('every file the PostgreSQL leg runs exists', async (t) => {
  for (const file of storeSpecificTests) t.ok(existsSync(join(projectRoot, file)), file);
});

t.test('every file that imports the store-under-test helpers is in the PostgreSQL leg', async (t) => {
  const asking = testFiles(join(projectRoot, 'test')).filter((file) =>
    /from '[./]*helpers\/store-under-test\.js'/.test(readFileSync(join(projectRoot, file), 'utf8')),
  );
  t.ok(asking.length >= 5, 'the check finds files');
  t.same(
    asking.filter((file) => !storeSpecificTests.includes(file)),
    [],
  );
});
