// Slow clients cannot hold connections: header, request and keep-alive timeouts, over real sockets.
// Each is cut off no sooner than its timeout (the server measures from a moment after the client
// started its clock), and before the slow client has sent what it meant to: the bound is counted in
// bytes sent one a second, not read from a clock a loaded machine can stall (Node checks its
// connections once a second, so a cut comes a second or two after the timeout).
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { buildTestApp, tokenFor } from '../helpers/app.js';

async function listening(t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t, { headersTimeoutMs: 1000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 500 });
  const token = await tokenFor(app, 'alice');
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as { port: number }).port, token };
}

/** Writes `head` at once, then `text` one byte a second until the server closes the connection. */
function trickle(port: number, head: string, text: string): Promise<{ answer: string; seconds: number; sent: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    socket.write(head);
    let answer = '';
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < text.length && !socket.destroyed) socket.write(text[sent++]!);
    }, 1000);
    socket.on('data', (chunk) => (answer += String(chunk)));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, seconds: (Date.now() - started) / 1000, sent });
    });
  });
}

t.test('a client sending its headers one byte a second is cut off with 408', async (t) => {
  const { port, token } = await listening(t);
  const request = `GET /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;
  const { answer, seconds, sent } = await trickle(port, '', request);
  t.match(answer, /^HTTP\/1.1 408 /, 'answered 408');
  t.match(answer, /\{"error":408,"message":"The request took too long to arrive\."\}$/, 'in the Error shape');
  t.ok(seconds >= 1, `cut off after ${seconds} s (headers timeout 1 s), not before`);
  t.ok(sent < request.length, `before the headers were complete: ${sent} of ${request.length} bytes, one a second`);
});

t.test('a client sending its body one byte a second is cut off', async (t) => {
  const { port, token } = await listening(t);
  const body = '{"id":1,"name":"slow"}';
  const head = `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
  const { answer, seconds, sent } = await trickle(port, head, body);
  t.ok(seconds >= 2, `cut off after ${seconds} s (request timeout 2 s), not before`);
  t.ok(sent < body.length, `before the body was complete: ${sent} of ${body.length} bytes, one a second`);
  t.match(answer, /^HTTP\/1.1 408 /, 'answered 408');
});

t.test('an idle keep-alive connection is closed after the keep-alive timeout', async (t) => {
  const { port } = await listening(t);
  const socket = connect(port, '127.0.0.1');
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
  const started = Date.now();
  await new Promise((resolve) =>
    socket
      .on('close', resolve)
      .on('error', () => undefined)
      .resume(),
  );
  const seconds = (Date.now() - started) / 1000;
  // Typically about a second; the bound is 30 times that, and still under half the default (72 s) the
  // connection would stay if the setting were not applied.
  t.ok(seconds >= 0.5 && seconds < 30, `closed ${seconds} s after the request (keep-alive timeout 0.5 s)`);
});
