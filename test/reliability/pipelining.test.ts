// Requests pipelined on one connection are answered as if handled one after the other: a write is
// visible to the next request on the same connection (RFC 9112, 9.3.2 allows parallel handling
// only when every request is safe). The plain pipelined request->answer cases are rows of the edge's table
// (test/http/edge-cases.ts); here, what takes many requests or a client that stalls.
import { connect } from 'node:net';
import t from 'tap';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { pipeline } from '../helpers/pipeline.js';

async function listening(t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t, { rateLimitPerMinute: 0 });
  const token = await tokenFor(app, 'alice');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const head = (method: string, path: string) => `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n`;
  const request = (method: string, path: string, body?: string) =>
    body === undefined
      ? `${head(method, path)}\r\n`
      : `${head(method, path)}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  return { app, port, request };
}

t.test('a GET pipelined after a POST or DELETE sees it, 20 times over', async (t) => {
  const { port, request } = await listening(t);
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  t.teardown(() => void process.off('warning', onWarning));
  const requests: string[] = [];
  for (let i = 1; i <= 20; i++)
    requests.push(request('POST', '/plants', `{"id":${i},"name":"p${i}"}`), request('GET', '/plants?limit=1000'));
  for (let i = 1; i <= 20; i += 2) requests.push(request('DELETE', `/plants/${i}`), request('GET', '/plants?limit=1000'));
  const found = await pipeline(port, requests);
  let sawCreate = 0;
  for (let i = 0; i < 20; i++) {
    t.equal(found[2 * i]!.status, 200, `create ${i + 1}`);
    if ((JSON.parse(found[2 * i + 1]!.body) as unknown[]).length === i + 1) sawCreate++;
  }
  let sawDelete = 0;
  for (let k = 0; k < 10; k++) {
    t.equal(found[40 + 2 * k]!.status, 204, `delete ${2 * k + 1}`);
    if ((JSON.parse(found[41 + 2 * k]!.body) as unknown[]).length === 19 - k) sawDelete++;
  }
  t.comment(`GETs that saw the create before them: ${sawCreate} of 20; the delete before them: ${sawDelete} of 10`);
  t.equal(sawCreate, 20, 'every GET saw the create pipelined before it');
  t.equal(sawDelete, 10, 'every GET saw the delete pipelined before it');
  // Waiting requests are queued per connection, one listener at a time, not one listener each on the first.
  await new Promise((resolve) => setImmediate(resolve));
  t.same(warnings, [], 'no listener leak warnings');
});

t.test('a write whose body is still arriving holds up no other request; once whole, the requests after it see it', async (t) => {
  const { port, request } = await listening(t);
  const slow = connect(port, '127.0.0.1');
  t.teardown(() => void slow.destroy());
  const body = '{"id":1,"name":"slow"}';
  const whole = request('POST', '/plants', body);
  slow.write(whole.slice(0, whole.length - 5)); // all but the body's last 5 bytes
  await new Promise((resolve) => setTimeout(resolve, 100));
  const [meanwhile] = await pipeline(port, [request('GET', '/plants')]);
  t.equal(meanwhile!.body, '[]', 'a GET on another connection is answered at once, without the plant');
  const answered = new Promise<string>((resolve) => slow.once('data', (chunk) => resolve(String(chunk))));
  slow.write(whole.slice(-5));
  t.match(await answered, /^HTTP\/1\.1 200 /);
  const [after] = await pipeline(port, [request('GET', '/plants')]);
  t.equal(after!.body, '[{"name":"slow"}]');
});

t.test('a client that stops reading its answers holds up no request of another connection', async (t) => {
  const { app, port, request } = await listening(t);
  const store = app.store.forRequest();
  for (let id = 1; id <= 1000; id++) await store.addPlant('alice', { id: BigInt(id), name: `plant number ${id} `.padEnd(40, '.') });
  // Some 10 MB of answers that are never read (far past the socket's buffers), then a write behind them.
  const stalled = connect(port, '127.0.0.1');
  t.teardown(() => void stalled.destroy());
  stalled.pause();
  const pages = Array.from({ length: 200 }, () => request('GET', '/plants?limit=1000'));
  stalled.write([...pages, request('POST', '/plants', '{"id":5000,"name":"behind"}')].join(''));
  // Give the server time to take in the stalled connection's requests and answer as much as it can.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const other = await pipeline(port, [request('POST', '/plants', '{"id":6000,"name":"other"}'), request('GET', '/plants?limit=1')]);
  t.same(
    other.map((answer) => answer.status),
    [200, 200],
  );
});
