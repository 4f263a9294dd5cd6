// Races over real HTTP: parallel creates of one id, create/delete interleavings, and two
// server processes writing to one database. Never a 5xx, never a leaked SQLITE_BUSY.
import t from 'tap';
import { listAll, load, type Outcome } from '../helpers/load.js';
import { runCli, startServer } from '../helpers/process.js';
import { freshStore } from '../helpers/store-under-test.js';

const PARALLEL = 60;

async function setup(t: Parameters<typeof freshStore>[0]) {
  const settings = await freshStore(t);
  const env = { ...settings.env, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' };
  const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
  const server = await startServer(t, env);
  const client = load(server.url, 30);
  t.teardown(() => client.close());
  return { env, token, server, client };
}

const statuses = (outcomes: Outcome[]) => outcomes.map((outcome) => outcome.status ?? outcome.error);

t.test(`${PARALLEL} parallel creates of one id with different content: one 200, the rest 409`, async (t) => {
  const { token, server, client } = await setup(t);
  const outcomes = await Promise.all(
    Array.from({ length: PARALLEL }, (_, i) => client.send('POST', '/plants', token, `{"id":42,"name":"n${i}"}`)),
  );
  const winners = outcomes.filter((outcome) => outcome.status === 200);
  t.equal(winners.length, 1);
  t.equal(outcomes.filter((outcome) => outcome.status === 409).length, PARALLEL - 1);
  t.same(await listAll(server.url, token), [JSON.parse(winners[0]!.body!)], 'the stored plant is the one that got 200');
});

t.test(`${PARALLEL} parallel identical creates all succeed`, async (t) => {
  const { token, server, client } = await setup(t);
  const outcomes = await Promise.all(
    Array.from({ length: PARALLEL }, () => client.send('POST', '/plants', token, '{"id":7,"name":"same"}')),
  );
  t.same(new Set(statuses(outcomes)), new Set([200]));
  t.same(await listAll(server.url, token), [{ name: 'same' }]);
});

t.test('parallel creates and deletes of one id leave a state the model explains', async (t) => {
  const { token, server, client } = await setup(t);
  for (let round = 0; round < 5; round++) {
    const operations = Array.from({ length: PARALLEL }, (_, i) =>
      i % 2 === 0
        ? client.send('POST', '/plants', token, '{"id":9,"name":"flip"}').then((o) => ['create', o] as const)
        : client.send('DELETE', '/plants/9', token).then((o) => ['delete', o] as const),
    );
    const results = await Promise.all(operations);
    const creates = results.filter(([kind]) => kind === 'create').map(([, outcome]) => outcome.status);
    const deletes = results.filter(([kind]) => kind === 'delete').map(([, outcome]) => outcome.status);
    t.same(new Set(creates), new Set([200]), `round ${round}: every create succeeds (created or already there)`);
    t.ok(
      deletes.every((status) => status === 204 || status === 404),
      `round ${round}: deletes answer 204 or 404`,
    );
    const deleted = deletes.filter((status) => status === 204).length;
    const present = (await listAll(server.url, token)).length;
    // In any serial order of these identical creates and deletes, from no plant: each successful delete
    // follows its own create that made the plant, as does a plant left at the end.
    t.ok(deleted + present <= creates.length, `round ${round}: ${deleted} deletes succeeded and ${present} left, one create each`);
    t.ok(present === 0 || present === 1, `round ${round}: the plant is there or not (${present})`);
    if (present === 0) t.ok(deleted >= 1, `round ${round}: an absent plant was deleted by someone`);
    await client.send('DELETE', '/plants/9', token);
  }
});

t.test('two server processes on one database: parallel writes, no 5xx, nothing lost', async (t) => {
  const { env, token, server, client } = await setup(t);
  const second = await startServer(t, env);
  const secondClient = load(second.url, 30);
  t.teardown(() => secondClient.close());
  const outcomes = await Promise.all(
    Array.from({ length: 400 }, (_, i) => {
      const via = i % 2 === 0 ? client : secondClient;
      // Every fourth id is sent twice, once to each process, with different names.
      const id = i % 4 === 3 ? i - 1 : i;
      return via.send('POST', '/plants', token, `{"id":${id},"name":"n${i}"}`);
    }),
  );
  const seen = statuses(outcomes);
  t.ok(
    seen.every((status) => status === 200 || status === 409),
    `only 200 and 409: ${[...new Set(seen)].join(', ')}`,
  );
  t.equal(outcomes.filter((o) => o.status === 409).length, 100, 'each duplicated id conflicts exactly once');
  t.equal((await listAll(server.url, token)).length, 300);
  t.equal((await listAll(second.url, token)).length, 300, 'both processes see the same plants');
});
