// Crash durability: SIGKILL the server at random moments under concurrent creates; after a
// restart every create that was answered 200 is listed and the database is intact.
import Database from 'better-sqlite3';
import t from 'tap';
import { listAll, load } from '../helpers/load.js';
import { adminQuery } from '../helpers/postgres-database.js';
import { runCli, startServer } from '../helpers/process.js';
import { freshStore, storeKind } from '../helpers/store-under-test.js';

const KILL_POINTS = 3;
const CREATES = 1200;
const CONNECTIONS = 24;

t.test(`${KILL_POINTS} kill points, ${CREATES} concurrent creates over ${CONNECTIONS} connections each`, async (t) => {
  const settings = await freshStore(t);
  const env = { ...settings.env, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' };
  const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
  const acknowledged = new Set<string>();
  const sent = new Set<string>();

  for (let round = 0; round < KILL_POINTS; round++) {
    const server = await startServer(t, env);
    const client = load(server.url, CONNECTIONS);
    // Kill at a random acknowledgement, while at least 200 creates are still to come.
    const killAt = 1 + Math.floor(Math.random() * (CREATES - 200));
    let roundAcknowledged = 0;
    const requests = Array.from({ length: CREATES }, (_, index) => {
      const name = `r${round}-p${index}`;
      sent.add(name);
      const id = BigInt(round) * 1_000_000_000_000n + BigInt(index) - 2n ** 62n;
      return client.send('POST', '/plants', token, `{"id":${id},"name":"${name}"}`).then((outcome) => {
        if (outcome.status === 200) {
          acknowledged.add(name);
          if (++roundAcknowledged === killAt) server.child.kill('SIGKILL');
        } else if (outcome.status !== undefined) throw new Error(`create answered ${outcome.status}: ${outcome.body}`);
      });
    });
    await Promise.all(requests);
    client.close();
    const exit = await server.exit;
    t.equal(exit.signal, 'SIGKILL', `round ${round}: killed at acknowledgement ${killAt}; ${roundAcknowledged} of ${CREATES} acknowledged`);
  }

  const server = await startServer(t, env);
  const listed = new Set((await listAll(server.url, token)).map((plant) => plant.name));
  const lost = [...acknowledged].filter((name) => !listed.has(name));
  t.same(lost, [], `all ${acknowledged.size} acknowledged creates survived`);
  t.same(
    [...listed].filter((name) => !sent.has(name)),
    [],
    'nothing listed that was never sent',
  );
  t.ok(acknowledged.size > 0 && acknowledged.size < KILL_POINTS * CREATES, 'the kills landed mid-load');
  server.child.kill('SIGTERM');
  await server.exit;
  if (storeKind === 'sqlite') {
    const db = new Database(settings.config.databasePath, { readonly: true });
    t.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
  } else {
    // PostgreSQL has no integrity_check, and a killed client cannot damage its files; amcheck
    // still verifies the primary key's B-tree and that it indexes every row of the table.
    const url = settings.config.databaseUrl!;
    await adminQuery(url, 'CREATE EXTENSION IF NOT EXISTS amcheck');
    const checked = await adminQuery(url, "SELECT bt_index_check('plants_pkey', true), count(*)::int AS rows FROM plants");
    t.equal(checked.rows[0].rows, listed.size, 'amcheck: the plants key is sound and covers every row');
  }
});
