// Requests pipelined on one connection are answered as if handled one after the other: a write is
// visible to the next request on the same connection (RFC 9112, 9.3.2 allows parallel handling
// only when every request is safe).
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

t.test('a DELETE pipelined after the POST of the same plant finds it; a POST after the DELETE creates it again', async (t) => {
  const { port, request } = await listening(t);
  const found = await pipeline(port, [
    request('POST', '/plants', '{"id":7,"name":"a"}'),
    request('DELETE', '/plants/7'),
    request('POST', '/plants', '{"id":7,"name":"b"}'),
    request('GET', '/plants'),
  ]);
  t.same(
    found.map((answer) => answer.status),
    [200, 204, 200, 200],
  );
  t.equal(found[3]!.body, '[{"name":"b"}]');
});

t.test('bytes that are not HTTP after pipelined requests: their answers go first, then the 400, and their writes stand', async (t) => {
  const { port, request } = await listening(t);
  const found = await pipeline(port, [
    request('POST', '/plants', '{"id":1,"name":"a"}'),
    request('DELETE', '/plants/1'),
    request('POST', '/plants', '{"id":2,"name":"b"}'),
    request('GET', '/plants'),
    'NOT HTTP\r\n\r\n',
  ]);
  t.same(
    found.map((answer) => answer.status),
    [200, 204, 200, 200, 400],
  );
  t.equal(found[3]!.body, '[{"name":"b"}]');
  t.match(found[4]!.body, /not valid HTTP/);
  t.equal(found[4]!.headers.connection, 'close', 'the connection ends after the refusal');
});

t.test('a DELETE followed by a body it does not frame (as http.request writes one): 204, then 400 for the body', async (t) => {
  const { port, request } = await listening(t);
  await pipeline(port, [request('POST', '/plants', '{"id":3,"name":"c"}')]);
  const found = await pipeline(port, [request('DELETE', '/plants/3'), '{"x":1}']);
  t.same(
    found.map((answer) => answer.status),
    [204, 400],
    'the 204 says the plant is gone; the 400 is for the bytes after it',
  );
  const [after] = await pipeline(port, [request('GET', '/plants')]);
  t.equal(after!.body, '[]');
});

t.test('a URL the router refuses, pipelined among writes, lets no request behind it overtake one before it', async (t) => {
  const { port, request } = await listening(t);
  const found = await pipeline(port, [
    request('POST', '/plants', '{"id":4,"name":"d"}'),
    request('GET', '/plants/%zz'),
    request('POST', '/plants', '{"id":5,"name":"e"}'),
    request('GET', '/plants'),
  ]);
  t.same(
    found.map((answer) => answer.status),
    [200, 400, 200, 200],
  );
  t.equal(found[3]!.body, '[{"name":"d"},{"name":"e"}]', 'the GET saw the POST before it');
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
