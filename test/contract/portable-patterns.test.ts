// The contract reads the same in a consumer's tools: every `pattern` in openapi.yaml compiles, and decides
// alike, as JSON Schema has it (ECMA-262 with the `u` flag, as Ajv compiles it), as a RegExp without the
// flag (what Spectral's example checks and Portman's checker use), and in Python's `re`; Spectral's
// `spectral:oas` finds the contract's own examples valid.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { projectRoot } from '../helpers/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

const document: unknown = parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8'));

function patternsOf(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) patternsOf(item, found);
  else if (typeof node === 'object' && node !== null)
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') found.add(value);
      else patternsOf(value, found);
    }
  return found;
}
const patterns = [...patternsOf(document)];

/** Strings that tell the forms apart where they could differ: controls, surrogates alone, paired, reversed. */
const SAMPLES = [
  '',
  'Monstera',
  'a\u0000b',
  '\u001f',
  '\n',
  '\u007f',
  '\u0085',
  '\u009f',
  '\u00a0',
  '🌿',
  'x🌵y',
  '\ud800',
  'a\udbffb',
  '\udc00',
  '\ude00\ud83d',
  '🌿\ud83c',
  '\ufffd\ue000',
  '/plants/42',
  '"per-token";r=5999;t=42',
  'AbC_-09',
  'p{Cc}',
];

t.test('every pattern in openapi.yaml decides alike with and without the u flag', async (t) => {
  t.ok(patterns.length >= 4, `${patterns.length} patterns`);
  for (const pattern of patterns) {
    const unicode = new RegExp(pattern, 'u');
    const plain = new RegExp(pattern);
    const differing = SAMPLES.filter((sample) => unicode.test(sample) !== plain.test(sample));
    t.same(differing, [], pattern);
  }
});

const python = spawnSync('python3', ['--version']).status === 0;
t.test('every pattern compiles in Python re and decides as JSON Schema does', { skip: python ? false : 'no python3 here' }, async (t) => {
  // JSON carries lone surrogates as escapes (JSON.stringify writes them so); Python's json reads an escaped
  // pair as one astral character and a lone one as a lone surrogate, as a JavaScript string holds them.
  // Not compared: a string ending in a newline, where Python's `$` also matches before it (ECMA-262's does
  // not), for any anchored pattern; a Python consumer checks with re.fullmatch, or the service refuses it.
  const samples = SAMPLES.filter((sample) => !sample.endsWith('\n'));
  const script = [
    'import json, re, sys',
    'patterns, samples = json.load(sys.stdin)',
    'print(json.dumps([[bool(re.search(p, s)) for s in samples] for p in patterns]))',
  ].join('\n');
  const verdicts = JSON.parse(
    execFileSync('python3', ['-c', script], { input: JSON.stringify([patterns, samples]), encoding: 'utf8' }),
  ) as boolean[][];
  patterns.forEach((pattern, index) => {
    const unicode = new RegExp(pattern, 'u');
    t.same(
      verdicts[index],
      samples.map((sample) => unicode.test(sample)),
      pattern,
    );
  });
});

t.test("Spectral's spectral:oas finds every example of the contract valid", async (t) => {
  const ruleset = join(tempDir(t), 'oas.yaml');
  writeFileSync(ruleset, 'extends: [spectral:oas]\n');
  const run = spawnSync(
    join(projectRoot, 'node_modules', '.bin', 'spectral'),
    ['lint', join(projectRoot, 'openapi.yaml'), '--ruleset', ruleset, '--format', 'json', '--quiet'],
    { encoding: 'utf8' },
  );
  const results = JSON.parse(run.stdout || '[]') as { code: string; message: string; path: string[] }[];
  const found = results
    .filter((result) => result.code !== 'info-contact')
    .map((result) => `${result.code} ${result.path.join('.')}: ${result.message}`);
  t.same(found, [], 'no finding but the contact (the ignore list in .spectral.yaml says why)');
});
