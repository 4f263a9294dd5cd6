// The log is whole at exit: the lines of every request answered reach stdout even when its reader stalls
// (a busy log shipper, a full pipe) across the shutdown. Before, lines not yet written when the process
// exited were lost (pino's own destination: the one it was writing; process.stdout alone: all of them).
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { startServer } from '../helpers/process.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Requests whose two log lines (about 170 bytes each) fill the pipe and Node's buffer behind it. */
const REQUESTS = 1000;

t.test('SIGTERM while nobody reads stdout: the line of every request answered is written before the process exits', async (t) => {
  const server = await startServer(t, { DATABASE_PATH: join(tempDir(t), 'plants.db'), BOOTSTRAP_TOKEN: 'off' });
  const stdout = server.child.stdout!;
  stdout.pause(); // the reader stalls: the pipe fills
  // One client, request after request, under the test's own request ids; all answered before the signal.
  const answered: string[] = [];
  for (let n = 0; n < REQUESTS; n++) {
    const id = `log-test-${n}`;
    if ((await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': id } })).ok) answered.push(id);
  }
  server.child.kill('SIGTERM');
  await sleep(500); // the process is shutting down, its log still unread
  stdout.resume();
  const exit = await server.exit;
  t.equal(exit.code, 0);
  t.equal(answered.length, REQUESTS, 'every request answered before the signal');
  const lines = exit.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; reqId?: string });
  const logged = (message: string) => new Set(lines.filter((line) => line.msg === message).map((line) => line.reqId));
  const completed = logged('request completed');
  t.same(
    answered.filter((id) => !completed.has(id)),
    [],
    'every request answered has its line',
  );
  t.same(
    [...logged('incoming request')].filter((id) => !completed.has(id)),
    [],
    'every request logged as it came is logged as answered',
  );
});
