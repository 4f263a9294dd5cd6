// The realistic mix's calls (JavaScript generator) and the plants seeded for its deletes: shares,
// Zipf ranks, fresh and existing ids, and seeds that cover every delete a run can send.
import t from 'tap';
import { MIX_USERS } from '../../bench/bench-user.js';
import { freshIds } from '../../bench/load/id-ranges.js';
import { DELETE_ID_OFFSET, shareOf } from '../../bench/load/plan.js';
import { seedsFor } from '../../bench/load/seeds.js';
import { usersMix, type UsersMixPlan } from '../../bench/load/users-mix.js';
import { MIX_SHARES } from '../../bench/realistic-mix.js';
import { zipfWeights } from '../../bench/zipf.js';

const plan = (firstId = 1e13): UsersMixPlan => ({
  kind: 'users-mix',
  users: MIX_USERS,
  weights: zipfWeights(MIX_USERS.length),
  limit: 20,
  cursors: ['A', 'B', 'C'],
  shares: MIX_SHARES,
  firstId,
  deleteFirstId: firstId + DELETE_ID_OFFSET,
  seed: 14,
});

const CALLS = 200_000;

t.test('the calls follow the shares, the users follow Zipf, the ids are fresh or seeded', async (t) => {
  const mix = plan();
  const next = usersMix(mix);
  const kinds = { first: 0, cursor: 0, create: 0, delete: 0, other: 0 };
  const perUser = new Map<string, number>();
  const deletes = new Map<string, number[]>();
  const created: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const call = next();
    perUser.set(call.user, (perUser.get(call.user) ?? 0) + 1);
    if (call.method === 'GET') {
      if (call.path === '/plants?limit=20') kinds.first++;
      else if (/^\/plants\?limit=20&cursor=[ABC]$/.test(call.path)) kinds.cursor++;
      else kinds.other++;
    } else if (call.method === 'POST') {
      kinds.create++;
      created.push((JSON.parse(call.body!) as { id: number }).id);
    } else {
      kinds.delete++;
      const list = deletes.get(call.user) ?? [];
      list.push(Number(call.path.slice('/plants/'.length)));
      deletes.set(call.user, list);
    }
  }
  const share = (count: number) => count / CALLS;
  t.equal(kinds.other, 0, 'every GET is a first page or a page at one of the cursors');
  t.ok(Math.abs(share(kinds.first) - 0.6) < 0.01, `first pages ${share(kinds.first)}`);
  t.ok(Math.abs(share(kinds.cursor) - 0.25) < 0.01, `cursor pages ${share(kinds.cursor)}`);
  t.ok(Math.abs(share(kinds.create) - 0.1) < 0.01, `creates ${share(kinds.create)}`);
  t.ok(Math.abs(share(kinds.delete) - 0.05) < 0.01, `deletes ${share(kinds.delete)}`);
  const weights = zipfWeights(MIX_USERS.length);
  for (const rank of [0, 1, 9, 49]) {
    const user = MIX_USERS[rank]!;
    const expected = weights[rank]!;
    t.ok(
      Math.abs(share(perUser.get(user) ?? 0) - expected) < 0.1 * expected + 0.002,
      `rank ${rank + 1}: ${share(perUser.get(user) ?? 0)} of calls, expected ${expected}`,
    );
  }
  t.same(
    created,
    created.map((_, i) => mix.firstId + i),
    'creates take consecutive fresh ids',
  );
  for (const [user, ids] of deletes)
    t.same(
      ids,
      ids.map((_, i) => mix.deleteFirstId + i),
      `${user} deletes its own ids in order, each once`,
    );
});

t.test("the seeds hold every user's deletes of a run of the expected size", async (t) => {
  const mix = plan();
  const seeds = seedsFor(mix, CALLS, 50);
  t.equal(seeds.length, MIX_USERS.length);
  const seeded = new Map(seeds.map((seed) => [seed.owner, seed]));
  const next = usersMix(mix);
  const used = new Map<string, number>();
  for (let i = 0; i < CALLS; i++) {
    const call = next();
    if (call.method === 'DELETE') used.set(call.user, (used.get(call.user) ?? 0) + 1);
  }
  for (const user of MIX_USERS) {
    const seed = seeded.get(user)!;
    t.equal(seed.firstId, mix.deleteFirstId);
    t.ok((used.get(user) ?? 0) <= seed.count, `${user}: ${used.get(user) ?? 0} deletes, ${seed.count} seeded`);
  }
  const total = seeds.reduce((sum, seed) => sum + seed.count, 0);
  t.ok(total < CALLS * MIX_SHARES.delete * 1.5, `seeds stay near the deletes expected (${total})`);
});

t.test('fresh id ranges never overlap, and ranges that sort first count down below all before', async (t) => {
  const up = [0, 1, 2].map((run) => freshIds(0, run));
  t.ok(up.every((ids, i) => ids.step === 1 && (i === 0 || ids.firstId > up[i - 1]!.firstId + 3 * DELETE_ID_OFFSET)));
  const down = [0, 1, 2].map((run) => freshIds(1, run, true));
  t.ok(
    down.every((ids, i) => ids.step === -1 && ids.firstId < 0 && (i === 0 || ids.firstId < down[i - 1]!.firstId - 3 * DELETE_ID_OFFSET)),
  );
  t.ok(freshIds(5, 9000).firstId < 2 ** 53, 'ids stay exact in JavaScript and Lua numbers');
  t.throws(() => freshIds(0, 1e5), /too many runs/);
  const second = shareOf(plan(), 1) as UsersMixPlan;
  t.ok(
    second.deleteFirstId > plan().deleteFirstId && second.firstId > plan().deleteFirstId,
    "a second load generator's creates and deletes start past the first's",
  );
});
