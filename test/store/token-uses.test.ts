// Last use of tokens: at most one write a minute per token, batched off the request path, written on close;
// against each store, counted by a trigger in the real database.
import Database from 'better-sqlite3';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { TokenUses, USE_RESOLUTION_MS } from '../../src/store/token-uses.js';
import { bearer, inject, testConfig, tokenFor } from '../helpers/app.js';
import { adminQuery } from '../helpers/postgres-database.js';
import { until } from '../helpers/until.js';

type Batch = Array<[id: number, at: number]>;

/** A TokenUses on a clock the test sets, writing into `batches`. */
function onClock(fail = () => false) {
  const clock = { now: 0 };
  const batches: Batch[] = [];
  const uses = new TokenUses(
    async (uses) => {
      if (fail()) throw new Error('the database is away');
      batches.push([...uses]);
    },
    { delayMs: 60_000, now: () => clock.now }, // the test writes with flush(): no timer decides for it
  );
  return { clock, batches, uses };
}

t.test('uses of a token within a minute of its last written use are not written again', async (t) => {
  const { clock, batches, uses } = onClock();
  uses.used(1);
  clock.now = 30_000;
  for (let i = 0; i < 10_000; i++) uses.used(1);
  uses.used(2);
  clock.now = USE_RESOLUTION_MS - 1;
  uses.used(1);
  await uses.flush();
  t.same(
    batches,
    [
      [
        [1, 0],
        [2, 30_000],
      ],
    ],
    "one write, with each token's first use in it",
  );
  clock.now = USE_RESOLUTION_MS;
  uses.used(1);
  uses.used(2); // 30 s after its last written use
  await uses.flush();
  t.same(batches[1], [[1, USE_RESOLUTION_MS]], 'a minute after its last written use, token 1 is written again; token 2 not yet');
  await uses.flush();
  t.equal(batches.length, 2, 'nothing pending, nothing written');
});

t.test('the write comes by itself after the delay, and once for all the uses of that delay', async (t) => {
  const batches: Batch[] = [];
  const uses = new TokenUses(async (written) => void batches.push([...written]), { delayMs: 50 });
  const noted = Date.now();
  uses.used(1);
  uses.used(2);
  uses.used(1);
  t.equal(batches.length, 0, 'used() writes nothing itself');
  // The write waits for the delay (a lower bound, which load cannot break), then comes by itself: no
  // upper bound on when, which only the machine's load decides; a write that never came fails the wait.
  await until(() => batches.length === 1, 30_000, 'the delayed write');
  const waited = Date.now() - noted;
  t.ok(waited >= 45, `written ${waited} ms after the first use, not before the delay (50 ms)`);
  t.same(
    batches[0]!.map(([id]) => id),
    [1, 2],
  );
  t.ok(
    batches[0]!.every(([, at]) => at >= noted && at <= noted + waited),
    'each use keeps its own time',
  );
});

t.test('a write that fails is not retried, but the next use of its tokens is written', async (t) => {
  let failing = true;
  const { clock, batches, uses } = onClock(() => failing);
  uses.used(1);
  await uses.flush(); // resolves: a lost last use must not fail anything
  t.same(batches, []);
  failing = false;
  clock.now = 1000;
  uses.used(1);
  await uses.flush();
  t.same(batches, [[[1, 1000]]], 'the next use, a second later, is written');
});

t.test('close writes what is pending and notes nothing after', async (t) => {
  const { clock, batches, uses } = onClock();
  uses.used(7);
  await uses.close();
  t.same(batches, [[[7, 0]]]);
  clock.now = USE_RESOLUTION_MS * 2;
  uses.used(8);
  await uses.flush();
  t.equal(batches.length, 1, 'a use after close is not written');
});

/** Counts, in the real database, each write of a token's last use (a trigger), whichever store the suite runs on. */
async function countUseWrites(config: Config): Promise<() => Promise<Map<number, number>>> {
  if (config.databaseUrl !== undefined) {
    const url = config.databaseUrl;
    await adminQuery(
      url,
      `CREATE TABLE use_writes (token_id BIGINT NOT NULL);
       CREATE FUNCTION count_use_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO use_writes VALUES (NEW.id); RETURN NEW; END $$;
       CREATE TRIGGER count_use_writes AFTER UPDATE OF last_used_at ON tokens FOR EACH ROW EXECUTE FUNCTION count_use_write();`,
    );
    return async () => {
      const { rows } = await adminQuery(url, 'SELECT token_id::int AS id, count(*)::int AS n FROM use_writes GROUP BY token_id');
      return new Map(rows.map((row: { id: number; n: number }) => [row.id, row.n]));
    };
  }
  const db = new Database(config.databasePath);
  db.exec(`CREATE TABLE use_writes (token_id INTEGER NOT NULL);
           CREATE TRIGGER count_use_writes AFTER UPDATE OF last_used_at ON tokens BEGIN INSERT INTO use_writes VALUES (NEW.id); END;`);
  db.close();
  return async () => {
    const reader = new Database(config.databasePath, { readonly: true });
    try {
      const rows = reader.prepare('SELECT token_id AS id, count(*) AS n FROM use_writes GROUP BY token_id').all() as Array<{
        id: number;
        n: number;
      }>;
      return new Map(rows.map((row) => [row.id, row.n]));
    } finally {
      reader.close();
    }
  };
}

t.test("hundreds of requests within a minute write each token's last use once; token list shows it", async (t) => {
  const config = await testConfig(t, { rateLimitPerMinute: 0 });
  const app = await buildApp(config);
  let closed = false;
  t.teardown(() => (closed ? undefined : app.close()));
  const alice = await tokenFor(app, 'alice');
  const bob = await tokenFor(app, 'bob');
  await tokenFor(app, 'carol'); // never used
  const useWrites = await countUseWrites(config);

  const started = Date.now();
  for (let round = 0; round < 100; round++) {
    const answers = await Promise.all([alice, bob].map((token) => app.inject({ url: '/plants', headers: bearer(token) })));
    if (answers.some((answer) => answer.statusCode !== 200))
      t.fail(`round ${round}: ${answers.map((answer) => answer.statusCode).join(', ')}`);
  }
  const ended = Date.now();
  const lastUse = async () => Object.fromEntries((await app.store.listTokens()).map((token) => [token.user, token.lastUsedAt]));
  let seen: Record<string, string | null> = {};
  await until(async () => ((seen = await lastUse()), seen.alice !== null && seen.bob !== null), 30_000, 'the last uses written');
  const within = (at: string | null) => at !== null && Date.parse(at) >= started && Date.parse(at) <= ended;
  t.ok(
    within(seen.alice!),
    `alice's last use ${seen.alice} lies within the requests (${new Date(started).toISOString()} .. ${new Date(ended).toISOString()})`,
  );
  t.ok(within(seen.bob!), `bob's last use ${seen.bob}, too`);
  t.equal(seen.carol, null, 'a token never used has no last use');

  // More uses in the same minute, then close, which writes whatever is pending: still one write each.
  await inject(t, app, { url: '/plants', headers: bearer(alice) });
  await app.close();
  closed = true;
  t.same(
    Object.fromEntries(await useWrites()),
    { 1: 1, 2: 1 },
    '201 requests of each token: one write of its last use each, none for carol',
  );
});

t.test('close writes the uses not written yet', async (t) => {
  const config = await testConfig(t);
  const app = await buildApp(config);
  const alice = await tokenFor(app, 'alice');
  const used = Date.now();
  t.equal((await inject(t, app, { url: '/plants', headers: bearer(alice) })).status, 200);
  await app.close(); // at once: the write's delay has not passed
  const reopened = await buildApp(config);
  t.teardown(() => reopened.close());
  const [token] = await reopened.store.listTokens();
  t.ok(
    token!.lastUsedAt !== null && Date.parse(token!.lastUsedAt) >= used && Date.parse(token!.lastUsedAt) <= Date.now(),
    `last use ${token!.lastUsedAt}`,
  );
});
