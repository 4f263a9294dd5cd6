// The breaking-change gate as CI runs it: a real git history in a temporary repository, the default
// base found from history alone (no tags, also in a fresh clone), exit codes and the major-version rule.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parse, stringify } from 'yaml';
import { projectRoot } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

const script = join(projectRoot, 'scripts', 'check-breaking.ts');
const tsx = import.meta.resolve('tsx');
const original = readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8');

function gate(cwd: string, ...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', tsx, script, ...args], { cwd, encoding: 'utf8' });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' }).trim();

/** Writes openapi.yaml with `edit` applied to the project's contract. */
function write(dir: string, edit: (document: any) => void) {
  const document = parse(original);
  edit(document);
  writeFileSync(join(dir, 'openapi.yaml'), stringify(document));
}
const commit = (dir: string, message: string) => {
  git(dir, 'add', 'openapi.yaml');
  git(dir, 'commit', '-qm', message);
  return git(dir, 'rev-parse', 'HEAD');
};

/** A repository with a 1.0.0 release, then a commit that only edits a description. */
function repository(t: Test) {
  const dir = tempDir(t);
  git(dir, 'init', '-q');
  writeFileSync(join(dir, 'openapi.yaml'), original);
  const release = commit(dir, 'release 1.0.0');
  write(dir, (d) => (d.paths['/plants'].get.description = 'Lists plants.'));
  commit(dir, 'docs');
  return { dir, release };
}
const lowerMaxLength = (d: any) => {
  d.paths['/plants'].get.description = 'Lists plants.';
  d.components.schemas.NewPlant.properties.name.maxLength = 100;
};

t.test('without --base it compares with the last commit that changed info.version, and passes non-breaking changes', async (t) => {
  const { dir, release } = repository(t);
  const run = gate(dir);
  t.equal(run.code, 0, run.err);
  t.match(run.out, `base: openapi.yaml at ${release.slice(0, 12)}, the last commit that changed info.version (to 1.0.0)`);
  t.notMatch(run.out, 'description changed', 'a non-breaking change is counted, not listed');
  t.match(run.out, '1 change(s), 0 breaking, 1 non-breaking (--verbose lists them)');
  const verbose = gate(dir, '--verbose');
  t.equal(verbose.code, 0, verbose.err);
  t.match(verbose.out, /^non-breaking +GET \/plants {2}\/paths\/~1plants\/get\/description {2}description changed$/m);
  t.match(verbose.out, '1 change(s), 0 breaking, 1 non-breaking;');
});

t.test('a breaking change exits 1, one line naming operation and pointer, and asks for a new major', async (t) => {
  const { dir } = repository(t);
  write(dir, lowerMaxLength);
  const run = gate(dir);
  t.equal(run.code, 1);
  t.match(run.out, /^breaking +POST \/plants {2}request body `name`: maxLength lowered from 200 to 100 \(narrower\)$/m);
  t.equal(run.out.trim().split('\n').length, 3, 'the base, one line for the one breaking change, the verdict');
  t.match(run.out, 'info.version 1.0.0 -> 1.0.0: 1 breaking change(s) need a new major info.version (2.0.0), or undo them');
  const verbose = gate(dir, '--verbose');
  t.equal(verbose.code, 1);
  t.match(
    verbose.out,
    /^breaking +POST \/plants {2}\/components\/schemas\/NewPlant\/properties\/name\/maxLength {2}request body `name`: maxLength lowered from 200 to 100 \(narrower\)$/m,
  );
  t.ok(verbose.out.indexOf('breaking ') < verbose.out.indexOf('non-breaking'), 'breaking changes are listed first');
});

t.test('a listing change names its media type, in one short line', async (t) => {
  const { dir } = repository(t);
  write(dir, (d) => delete d.components.schemas.PlantListing.properties.tag);
  const run = gate(dir);
  t.equal(run.code, 1);
  t.match(
    run.out,
    /^breaking +GET \/plants {2}response 200 body \(application\/vnd\.plant-store\.listing\+json\) `\[\]`: property `\[\]\.tag` removed$/m,
  );
  t.equal(run.out.trim().split('\n').length, 3, 'the base, one line, the verdict');
});

/** Marks the `cursor` parameter of GET /plants, or the whole DELETE /plants/{id}, deprecated until `sunset`. */
const deprecate = (sunset: string) => (d: any) => {
  const marks = { deprecated: true, 'x-deprecated-at': '2000-01-01', 'x-sunset': sunset };
  Object.assign(d.paths['/plants'].get.parameters[1], marks);
  Object.assign(d.paths['/plants/{id}'].delete, marks);
  d.info.version = '1.1.0';
};
const retire = (d: any) => {
  d.paths['/plants'].get.parameters.pop();
  delete d.paths['/plants/{id}'].delete;
};

t.test('the sunset rule: a removal the base deprecated passes once its sunset has passed, naming the rule', async (t) => {
  const { dir } = repository(t);
  // Released as 1.1.0 with the deprecations; removed in the working tree.
  write(dir, deprecate('2001-01-01'));
  commit(dir, 'release 1.1.0: deprecate cursor and deletePlant');
  write(dir, (d) => {
    deprecate('2001-01-01')(d);
    retire(d);
  });
  const run = gate(dir);
  t.equal(run.code, 0, run.out);
  const rule = 'sunset rule: deprecated since 2000-01-01, sunset 2001-01-01 has passed';
  t.match(run.out, new RegExp(`^allowed +GET /plants {2}query parameter cursor removed \\(${rule}\\)$`, 'm'));
  t.match(run.out, new RegExp(`^allowed +DELETE /plants/\\{id\\} {2}operation removed \\(${rule}\\)$`, 'm'));
  t.match(run.out, '2 change(s), 0 breaking, 2 removal(s) allowed by the sunset rule; info.version 1.1.0 -> 1.1.0: no breaking change');
});

t.test('the sunset rule: before the sunset, or never deprecated, a removal is breaking; a new major allows it', async (t) => {
  const { dir } = repository(t);
  write(dir, deprecate('2999-12-31'));
  commit(dir, 'release 1.1.0: deprecate cursor and deletePlant until 2999');
  write(dir, (d) => {
    deprecate('2999-12-31')(d);
    retire(d);
  });
  const early = gate(dir);
  t.equal(early.code, 1, early.out);
  t.match(early.out, /^breaking +GET \/plants {2}query parameter cursor removed$/m);
  t.match(early.out, /^breaking +DELETE \/plants\/\{id\} {2}operation removed$/m);
  t.match(early.out, '2 breaking change(s) need a new major info.version (2.0.0)');
  write(dir, retire);
  const never = gate(dir, '--base', 'HEAD~1');
  t.equal(never.code, 1, 'never deprecated in that base');
  t.match(never.out, /^breaking +GET \/plants {2}query parameter cursor removed$/m);
  write(dir, (d) => {
    deprecate('2999-12-31')(d);
    retire(d);
    d.info.version = '2.0.0';
  });
  const major = gate(dir);
  t.equal(major.code, 0, major.out);
  t.match(major.out, 'info.version 1.1.0 -> 2.0.0: a new major version, so the 2 breaking change(s) are allowed');
});

t.test('a new major version allows the breaking change; once released, it is the new base', async (t) => {
  const { dir, release } = repository(t);
  write(dir, (d) => {
    lowerMaxLength(d);
    d.info.version = '2.0.0';
  });
  const bumped = gate(dir);
  t.equal(bumped.code, 0, bumped.out);
  t.match(bumped.out, 'info.version 1.0.0 -> 2.0.0: a new major version, so the 1 breaking change(s) are allowed');
  const minor = (d: any) => {
    lowerMaxLength(d);
    d.info.version = '1.1.0';
  };
  write(dir, minor);
  t.equal(gate(dir).code, 1, 'a minor version is not enough');
  write(dir, (d) => {
    lowerMaxLength(d);
    d.info.version = '2.0.0';
  });
  const released = commit(dir, 'release 2.0.0');
  const after = gate(dir);
  t.equal(after.code, 0);
  t.match(after.out, `base: openapi.yaml at ${released.slice(0, 12)}, the last commit that changed info.version (to 2.0.0)`);
  t.match(after.out, '0 change(s), 0 breaking');
  const explicit = gate(dir, '--base', release);
  t.equal(explicit.code, 0);
  t.match(explicit.out, `base: openapi.yaml at ${release}`);
  t.match(explicit.out, /^breaking +POST \/plants/m);
});

t.test('a fresh clone without tags finds the release; a shallow one says how to fix it', async (t) => {
  const { dir, release } = repository(t);
  const clone = join(tempDir(t), 'clone');
  git(dir, 'clone', '-q', '--no-tags', dir, clone);
  t.match(gate(clone).out, `base: openapi.yaml at ${release.slice(0, 12)}`);
  const shallow = join(tempDir(t), 'shallow');
  git(dir, 'clone', '-q', '--depth', '1', `file://${dir}`, shallow);
  const run = gate(shallow);
  t.equal(run.code, 2);
  t.match(run.err, 'shallow clone');
  t.match(run.err, 'fetch-depth: 0');
});

t.test('a base without the contract, or no git at all, exits 2 with the reason', async (t) => {
  const { dir } = repository(t);
  const missing = gate(dir, '--base', 'no-such-ref');
  t.equal(missing.code, 2);
  t.match(missing.err, 'there is no openapi.yaml at no-such-ref');
  const outside = tempDir(t);
  writeFileSync(join(outside, 'openapi.yaml'), original);
  t.equal(gate(outside).code, 2);
});

t.test('npm run check:breaking runs on this repository', async (t) => {
  const run = spawnSync('npm', ['run', '--silent', 'check:breaking', '--', '--base', 'HEAD'], { cwd: projectRoot, encoding: 'utf8' });
  t.match(run.stdout, 'base: openapi.yaml at HEAD');
  t.not(run.status, 2, run.stderr);
});
