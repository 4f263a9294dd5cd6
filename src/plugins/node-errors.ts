// Answers for what Node's HTTP layer and Fastify's router refuse before any hook runs (text that is
// not HTTP, slow or oversized headers, an Expect it cannot meet, no Host, a bad URL, an over-long
// id): the Error shape with the API's security headers, like every other answer.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { DuplicateAuthorization, DuplicateHost, MissingHost, UnsupportedExpectation } from '../errors.js';
import { noRoute, sendError } from './error-handler.js';
import { refuseAfterAnswers } from './in-order.js';
import { requestIdOf } from './request-id.js';
import { API_SECURITY_HEADERS } from '../http/headers.js';

/** A URL may be 8 KiB; an answer echoes only its start. */
const clip = (text: string) => (text.length > 40 ? `${text.slice(0, 40)}...` : text);

/** `requestId`: the request's, when Node had read its headers; otherwise a new one. */
function errorAnswer(status: number, message: string, requestId: string = randomUUID(), more: Record<string, string> = {}) {
  const body = JSON.stringify({ error: status, message });
  // Connection: close: after a request Node could not read, the rest of the connection cannot be trusted.
  const headers = {
    ...API_SECURITY_HEADERS,
    ...more,
    'x-request-id': requestId,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
  return { status, body, headers };
}

/**
 * Writes an error answer on a socket Node gave no response for, then ends it: after the answers
 * to the requests before it on the connection, never in their place (in-order.ts). A request Fastify
 * had begun (its body broke off or came too slowly) keeps its id, and its log says how it ended.
 */
function refuse(socket: Socket, status: number, message: string, requestId?: string, more: Record<string, string> = {}): void {
  refuseAfterAnswers(socket, (refused) => {
    if (!socket.writable) return void socket.destroy();
    refused?.log.info({ res: { statusCode: status } }, `request refused: ${message}`);
    const answer = errorAnswer(status, message, refused?.id ?? requestId, more);
    const lines = Object.entries(answer.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n${lines}\r\n${answer.body}`);
  });
}

/** Fastify's clientErrorHandler: errors Node raises before it has a request, or while it reads one's body. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431
      ? 'The request headers are larger than 16 KiB; send fewer or shorter ones.'
      : status === 408
        ? 'The request took too long to arrive.'
        : 'The request is not valid HTTP.';
  refuse(socket, status, message);
}

/**
 * Fastify's frameworkErrors: the router's refusals, which come before any hook (the security headers' included),
 * and without Fastify's "request completed" line: the request's log ends with the refusal instead.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.headers(API_SECURITY_HEADERS).header('x-request-id', request.id);
  const path = request.url.split('?')[0]!;
  // DELETE /plants/{id} is the only route with a path parameter; the router gives up on it past 100 characters.
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `The id in the path is too long: an id is a decimal int64, at most 20 characters. The path starts "${clip(path)}".`
      : `The request URL is not valid: it is not correctly percent-encoded. It starts "${clip(path)}".`;
  request.log.info({ res: { statusCode: 400 } }, `request refused: ${message}`);
  sendError(reply, 400, message);
}

/** The first header named twice in a request's raw header list (name, value, name, value...) of Host and Authorization. */
function repeated(raw: string[]): 'host' | 'authorization' | undefined {
  let hosts = 0;
  let authorizations = 0;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!;
    if (name.length === 4 && name.toLowerCase() === 'host' && ++hosts > 1) return 'host';
    if (name.length === 13 && name.toLowerCase() === 'authorization' && ++authorizations > 1) return 'authorization';
  }
  return undefined;
}

export default fp(
  async function nodeErrors(app: FastifyInstance) {
    // Without a listener Node answers 417 with an empty body; with one, the answer is ours.
    app.server.on('checkExpectation', (request, response) => {
      const { body, headers } = errorAnswer(
        417,
        new UnsupportedExpectation(clip(String(request.headers.expect))).message,
        requestIdOf(request),
      );
      response.writeHead(417, headers).end(body);
    });
    // Node hands CONNECT to a 'connect' listener and, with none, drops the socket unanswered. This is no
    // proxy: the answer is the one any other method no route serves gets (405 with Allow, or 404).
    app.server.on('connect', (request: IncomingMessage, socket: Socket) => {
      const { status, message, allow } = noRoute(app.routeTable, 'CONNECT', String(request.url));
      refuse(socket, status, message, requestIdOf(request), allow === undefined ? {} : { allow });
    });
    // HTTP/1.1 requires exactly one Host (RFC 9112, 3.2). Node's own check (requireHostHeader, off in app.ts)
    // answers 400 with an empty body; here it is an error like any other, after the security headers' hook.
    // Node keeps only the first of two Host or Authorization headers in request.headers: the raw list shows
    // the second. Two credentials are refused rather than the first taken: a proxy in front may check the other.
    app.addHook('onRequest', (request, _reply, done) => {
      if (request.headers.host === undefined && request.raw.httpVersion === '1.1') return done(new MissingHost());
      const twice = repeated(request.raw.rawHeaders);
      if (twice !== undefined) return done(twice === 'host' ? new DuplicateHost() : new DuplicateAuthorization());
      done();
    });
  },
  { name: 'node-errors', dependencies: ['security-headers'] },
);
