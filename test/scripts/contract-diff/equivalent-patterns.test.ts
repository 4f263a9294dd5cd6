// The gate's equivalent patterns accept the same strings: compared as JSON Schema (and Ajv) reads them,
// with the `u` flag, on every BMP code unit alone and between letters, on each surrogate paired and alone,
// and on reversed pairs; the portable form reads the same without the flag too.
import t from 'tap';
import { EQUIVALENT_PATTERNS } from '../../../scripts/contract-diff/equivalent-patterns.js';

function* samples(): Generator<string> {
  for (let unit = 0; unit <= 0xffff; unit++) {
    const char = String.fromCharCode(unit);
    yield char;
    yield `a${char}b`;
  }
  for (let high = 0xd800; high <= 0xdbff; high++) {
    for (const low of [0xdc00, 0xde00, 0xdfff]) {
      const pair = String.fromCharCode(high, low);
      yield pair;
      yield `x${pair}y`;
      yield String.fromCharCode(low, high); // reversed: two lone surrogates
      yield pair + String.fromCharCode(high); // a pair, then a lone high surrogate
    }
  }
  for (let low = 0xdc00; low <= 0xdfff; low++) yield String.fromCharCode(0xd83d, low);
  yield '';
}

for (const [one, other] of EQUIVALENT_PATTERNS) {
  t.test(`${one} and ${other} accept the same strings`, async (t) => {
    const engines = {
      [`${one} (u)`]: new RegExp(one, 'u'),
      [`${other} (u)`]: new RegExp(other, 'u'),
      [`${other} (no flag)`]: new RegExp(other),
    };
    const differences: string[] = [];
    let count = 0;
    for (const sample of samples()) {
      count++;
      const verdicts = Object.entries(engines).map(([name, pattern]) => [name, pattern.test(sample)] as const);
      if (new Set(verdicts.map(([, accepted]) => accepted)).size > 1 && differences.length < 5)
        differences.push(`${JSON.stringify(sample)}: ${verdicts.map(([name, accepted]) => `${name} ${accepted}`).join(', ')}`);
    }
    t.same(differences, [], `no difference on ${count} strings`);
    const portable = new RegExp(other);
    t.ok(portable.test('Monstera 🌿 Ünïcödé'), 'astral characters and a valid pair are accepted');
    for (const bad of ['\u0000', '\u001f', '\u007f', '\u0085', '\u009f', '\ud800', '\udfff', '\udc00\ud800'])
      t.notOk(portable.test(`a${bad}b`), `refuses ${JSON.stringify(bad)}`);
  });
}
