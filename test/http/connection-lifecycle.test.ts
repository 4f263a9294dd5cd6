// One connection's record (src/http/connection.ts) from its socket's connect to the app's close: made before a byte is
// sent, serving pipelined requests in order and a refusal after them, dropped when the socket closes, and at the
// app's close every idle socket and every body still arriving closed, the extra accept sockets with them.
import { connect, type AddressInfo } from 'node:net';
import t from 'tap';
import { listenOnAcceptSockets } from '../../src/http/connection.js';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { parseAnswers } from '../helpers/pipeline.js';
import { until } from '../helpers/until.js';

/** A client socket and everything it has been sent, with whether the server has closed it. */
function client(port: number) {
  const socket = connect(port, '127.0.0.1');
  const seen = { text: '', closed: false, socket };
  socket.on('data', (chunk: Buffer) => (seen.text += String(chunk)));
  socket.on('close', () => (seen.closed = true));
  socket.on('error', () => undefined);
  return seen;
}

t.test('a connection record lives as long as its socket, and the app closes every one', async (t) => {
  const app = await buildTestApp(t);
  const token = await tokenFor(app, 'alice');
  await listenOnAcceptSockets(app, '127.0.0.1', 0);
  const { port } = app.server.address() as AddressInfo;
  const { open, acceptors } = app.connections;
  t.equal(open.size, 0, 'no record before a connection');

  const silent = client(port);
  await until(() => open.size === 1, 5000, 'the record of a connection that has sent nothing');

  // A create, a read, then bytes that are not HTTP, in one write: answered in that order, then refused and closed.
  const piped = client(port);
  const body = '{"id":7,"name":"Fern"}';
  const auth = `Host: x\r\nAuthorization: Bearer ${token}\r\n`;
  piped.socket.write(
    `POST /plants HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
      `GET /plants HTTP/1.1\r\n${auth}\r\n` +
      'NOT HTTP\r\n\r\n',
  );
  await until(() => piped.closed, 5000, 'the refusal closing the pipelined connection');
  const answers = parseAnswers(piped.text);
  t.same(
    answers.map((answer) => answer.status),
    [200, 200, 400],
    'the create, the read, then the refusal',
  );
  t.match(answers[1]?.body, /"name":"Fern"/, 'the read pipelined after the create sees it');
  t.equal(answers[2]?.headers.connection, 'close', 'the refusal closes the connection');
  await until(() => open.size === 1, 5000, "the refused connection's record dropped");

  silent.socket.destroy();
  await until(() => open.size === 0, 5000, 'the record dropped when the client closes');

  // At the close: a keep-alive connection between requests, and one whose body is still arriving.
  const kept = client(port);
  kept.socket.write(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
  await until(() => parseAnswers(kept.text).length === 1, 5000, 'the keep-alive answer');
  const arriving = client(port);
  arriving.socket.write(`POST /plants HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n{"id"`);
  await until(() => open.size === 2, 5000, 'both records');
  t.ok(acceptors.length > 0 || process.platform !== 'linux', 'the extra accept sockets, where the platform has them');
  await app.close();
  await until(() => kept.closed, 5000, 'the idle keep-alive connection closed');
  await until(() => arriving.closed, 5000, 'the body still arriving cut off after the grace');
  t.equal(arriving.text, '', 'the half-sent request was not answered: nothing of it was done');
  t.equal(open.size, 0, 'no record is left');
  t.equal(acceptors.length, 0, 'the extra accept sockets are closed with the app');
});
