// --baseline: another checkout's Plant Store beside this one, same data and requests, judged against it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { BASELINE, baselineRoot, withBaseline } from '../../bench/baseline.js';
import type { DataSet } from '../../bench/data.js';
import { parseOptions } from '../../bench/options.js';
import { scenarios } from '../../bench/scenarios.js';

const big: DataSet = { name: '1m', rows: 1_000_000, path: '/nowhere/1m.db' };
const small: DataSet = { name: '10k', rows: 10_000, path: '/nowhere/10k.db' };
const all = scenarios(big, small, 1_000_000);
const byId = (id: string) => all.find((scenario) => scenario.id === id)!;

t.test('the first page and the mix get the baseline beside plant-store, with the same requests', async (t) => {
  for (const id of ['get-first-page', 'realistic-mix']) {
    const scenario = byId(id);
    const both = withBaseline(scenario, '/base');
    const server = both.servers.find((spec) => spec.id === BASELINE);
    const { id: _ours, ...plantStore } = scenario.servers.find((spec) => spec.id === 'plant-store')!;
    t.same(server, { ...plantStore, id: BASELINE, root: '/base' }, `${id}: the same server, from the other checkout`);
    const contestant = both.contestants.find((c) => c.label === BASELINE)!;
    const ours = scenario.contestants.find((c) => c.label === 'plant-store')!;
    t.equal(contestant.plan, ours.plan, `${id}: the same request plan`);
    t.equal(contestant.server, BASELINE);
    t.same(both.targets.at(-1), { kind: 'ratio', of: 'plant-store', to: BASELINE, atLeast: 1 }, `${id}: no slower than the baseline`);
    t.equal(both.targets.length, scenario.targets.length + 1, `${id}: every other target kept`);
  }
});

t.test('a scenario without a plain plant-store is left alone', async (t) => {
  const perRequest = all.find((scenario) => !scenario.servers.some((spec) => spec.id === 'plant-store'))!;
  t.equal(withBaseline(perRequest, '/base'), perRequest);
});

t.test('--baseline names a built checkout, or is refused saying what is missing', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'baseline-'));
  t.teardown(() => rmSync(folder, { recursive: true, force: true }));
  t.throws(() => baselineRoot(folder), /no .*dist\/src\/server\.js; build that checkout first/);
  mkdirSync(join(folder, 'dist', 'src'), { recursive: true });
  writeFileSync(join(folder, 'dist', 'src', 'server.js'), '');
  t.equal(baselineRoot(folder), folder);
  t.equal(parseOptions(['--baseline', folder], false).baseline, folder);
  t.equal(parseOptions([], false).baseline, undefined);
});
