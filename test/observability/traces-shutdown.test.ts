// Shutting down with tracing on: the last spans are flushed to the collector, and an unreachable
// collector cannot hold the shutdown (the flush is bounded, plugins/tracing FLUSH_LIMIT_MS).
import { join } from 'node:path';
import t from 'tap';
import { FLUSH_LIMIT_MS } from '../../src/observability/tracing/plugin.js';
import { bearer, fetchChecked, tempDir } from '../helpers/app.js';
import { otlpReceiver } from '../helpers/otlp-receiver.js';
import { freePort, logged, runCli, startServer } from '../helpers/process.js';

async function serverWithTraces(t: Parameters<typeof startServer>[0], endpoint: string) {
  const env = {
    DATABASE_PATH: join(tempDir(t), 'plants.db'),
    DATABASE_URL: '',
    BOOTSTRAP_TOKEN: 'off',
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '60000', // spans wait in the batch until the shutdown sends them
  };
  const token = (await runCli(['token', 'create', 'alice'], env)).stdout.trim();
  const server = await startServer(t, env);
  const created = await fetchChecked(t, server.url, '/plants', {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({ id: 1, name: 'Fern' }),
  });
  t.equal(created.status, 200);
  return server;
}

t.test('SIGTERM sends the spans still waiting in the batch before the process exits', async (t) => {
  const receiver = await otlpReceiver(t);
  const server = await serverWithTraces(t, receiver.endpoint);
  t.same(
    receiver.spans.filter((span) => span.name === 'POST /plants'),
    [],
    'not sent yet: the batch waits',
  );
  server.child.kill('SIGTERM');
  const exit = await server.exit;
  t.equal(exit.code, 0);
  t.equal(receiver.spans.filter((span) => span.name === 'POST /plants').length, 1, 'the create reached the collector at shutdown');
});

t.test('an unreachable collector does not hold the shutdown: the spans are dropped after the bound, with a warning', async (t) => {
  const refused = `http://127.0.0.1:${await freePort()}`; // nothing listens there
  const server = await serverWithTraces(t, refused);
  const warned = logged(server, /"traces: /);
  const started = performance.now();
  server.child.kill('SIGTERM');
  const exit = await server.exit;
  const seconds = (performance.now() - started) / 1000;
  await warned;
  t.equal(exit.code, 0, 'a clean exit, not the 10-second limit of server.ts');
  // The exporter retries a refused connection for up to 10 s (OTEL_EXPORTER_OTLP_TIMEOUT): the bound ends it.
  // Exit code 0 above shows it did (waiting the exporter out would reach server.ts's 10 s limit, exit 1);
  // the time is bounded from below only, as load on the machine can only lengthen it.
  t.ok(seconds >= FLUSH_LIMIT_MS / 1000, `exited in ${seconds.toFixed(2)} s: after the flush bound, and the rest of the close`);
  t.match(
    exit.stdout,
    /"level":40,[^\n]*"msg":"traces: the collector did not take the last spans in time; they are dropped"/,
    'the log says the spans were dropped',
  );
});
