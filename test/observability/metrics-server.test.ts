// The metrics port's own server, on real HTTP: a crowd of scrapers gets one render a period, a
// failed render is not served again, and half-sent or idle connections are closed by the API's timeouts.
import { once } from 'node:events';
import { connect } from 'node:net';
import { Gauge, Registry } from 'prom-client';
import t, { type Test } from 'tap';
import { listen, MAX_SCRAPERS, metricsServer, type MetricsServerOptions } from '../../src/observability/metrics-server.js';

const TIMEOUTS = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300 };

/** A registry whose one gauge counts how often the registry is rendered. */
async function serve(t: Test, options: Partial<MetricsServerOptions> = {}, fail = () => false) {
  const registry = new Registry();
  const counted = { renders: 0 };
  new Gauge({
    name: 'renders',
    help: 'times rendered',
    registers: [registry],
    collect() {
      counted.renders++;
      if (fail()) throw new Error('collecting failed');
      this.set(counted.renders);
    },
  });
  const errors: unknown[] = [];
  const server = metricsServer(registry, (error) => errors.push(error), { ...TIMEOUTS, ...options });
  const url = await listen(server, 0, '127.0.0.1');
  t.teardown(() => server.close());
  return { url, counted, errors, port: Number(new URL(url).port) };
}

t.test('scrapers at once get one render, the same text; after the period, a new one', async (t) => {
  const { url, counted } = await serve(t, { renderEveryMs: 60_000 });
  const texts: string[] = [];
  // Five waves of as many scrapers as are served at once.
  for (let wave = 0; wave < 5; wave++) {
    texts.push(...(await Promise.all(Array.from({ length: MAX_SCRAPERS }, () => fetch(url).then((response) => response.text())))));
  }
  t.equal(texts.length, 5 * MAX_SCRAPERS);
  t.equal(counted.renders, 1, `one render for ${texts.length} scrapes`);
  t.equal(new Set(texts).size, 1, 'each got the same text');
  t.match(texts[0], /^renders 1$/m);

  const fresh = await serve(t, { renderEveryMs: 0 });
  await fetch(fresh.url).then((response) => response.text());
  await fetch(fresh.url).then((response) => response.text());
  t.equal(fresh.counted.renders, 2, 'once the period has passed, a scrape renders again');
});

t.test('a failed render answers 500, is logged, and is not served again', async (t) => {
  let failing = true;
  const { url, counted, errors } = await serve(t, { renderEveryMs: 60_000 }, () => failing);
  t.equal((await fetch(url)).status, 500);
  t.equal(errors.length, 1, 'logged');
  failing = false;
  const response = await fetch(url);
  t.equal(response.status, 200, 'the next scrape renders anew');
  t.equal(counted.renders, 2);
});

t.test('a half-sent request and an idle keep-alive connection are closed by the timeouts', async (t) => {
  const { port } = await serve(t);
  // Closed by the server (the timeouts are 300 ms, checked every second); the test's own limit is far above.
  const closed = (socket: ReturnType<typeof connect>) =>
    Promise.race([once(socket, 'close').then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 20_000).unref())]);
  const halfSent = connect(port, '127.0.0.1');
  halfSent.on('error', () => undefined);
  halfSent.resume(); // read what the server sends (its 408), so that its close is seen
  const halfSentClosed = closed(halfSent);
  await once(halfSent, 'connect');
  halfSent.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // headers never finished
  const idle = connect(port, '127.0.0.1');
  const idleClosed = closed(idle);
  await once(idle, 'connect');
  idle.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await once(idle, 'data');
  t.equal(await halfSentClosed, true, 'the half-sent request was cut');
  t.equal(await idleClosed, true, 'the idle connection was closed');
});
