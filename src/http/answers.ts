// The answers written before or instead of a handler: one writer of the Error shape {error, message} (error equal
// to the HTTP status) to a reply, a raw response or a socket; the app's one error handler and one not-found
// handler, asking Fastify's router for 404 or 405; and what Node's HTTP layer and the router refuse before any
// hook runs (bytes that are not HTTP, slow or oversized headers, an Expect, CONNECT, a bad URL, an over-long id).
import { randomUUID } from 'node:crypto';
import { ServerResponse, STATUS_CODES, type IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { clip, describeValidation, fill, MESSAGES, methodNotAllowed, nothingAt } from '../error-messages.js';
import { isPublicError, UnsupportedExpectation } from '../errors.js';
import { refuseAfterAnswers } from './connection.js';
import { API_SECURITY_HEADERS, requestIdOf } from './headers.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Writes the Error shape. A reply has its headers from the hooks (headers.ts). A raw response or a socket, which
 * Node gave no reply for, gets them here, with the request's id when Node had read its headers (else a new one),
 * and `Connection: close`: after a request Node could not read, the rest of the connection cannot be trusted.
 */
export function sendError(
  to: FastifyReply | ServerResponse | Socket,
  status: number,
  message: string,
  requestId: string = randomUUID(),
  more: Record<string, string> = {},
): FastifyReply | undefined {
  if (!(to instanceof ServerResponse || to instanceof Socket)) return to.code(status).type(JSON_TYPE).send({ error: status, message });
  const body = JSON.stringify({ error: status, message });
  const headers = {
    ...API_SECURITY_HEADERS,
    ...more,
    'x-request-id': requestId,
    'content-type': JSON_TYPE,
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
  if (to instanceof ServerResponse) return void to.writeHead(status, headers).end(body);
  const lines = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  to.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines}\r\n${body}`);
}

/** Answers on a socket Node gave no response for, after the answers before it (connection.ts), and ends it. */
function refuse(app: FastifyInstance, socket: Socket, status: number, message: string, requestId?: string, more?: Record<string, string>) {
  refuseAfterAnswers(app, socket, (refused) => {
    if (!socket.writable) return void socket.destroy();
    // A request Fastify had begun (its body broke off or came too slowly): its log says how it ended.
    refused?.log.info({ res: { statusCode: status } }, `request refused: ${message}`);
    sendError(socket, status, message, refused?.id ?? requestId, more);
  });
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request headers are larger than 16 KiB; send fewer or shorter ones.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive.'],
};

/** Fastify's clientErrorHandler (bound to the app): errors Node raises before it has a request, or while it reads one's body. */
export function clientErrorHandler(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'The request is not valid HTTP.'];
  refuse(this, socket, status, message);
}

/**
 * Fastify's frameworkErrors: the router's refusals, which come before any hook (the headers' included),
 * and without Fastify's "request completed" line: the request's log ends with the refusal instead.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.headers(API_SECURITY_HEADERS).header('x-request-id', request.id);
  const path = request.url.split('?')[0]!;
  // DELETE /plants/{id} is the only route with a path parameter; the router gives up on it past 100 characters.
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `The id in the path is too long: an id is a decimal int64, at most 20 characters. The path starts "${clip(path, 40)}".`
      : `The request URL is not valid: it is not correctly percent-encoded. It starts "${clip(path, 40)}".`;
  request.log.info({ res: { statusCode: 400 } }, `request refused: ${message}`);
  sendError(reply, 400, message);
}

/** The answer to a method no route of the path serves, as Fastify's router knows its routes: 405 with Allow when the path has some, else 404. */
function noRoute(
  app: FastifyInstance,
  method: string,
  url: string,
): { status: 404 | 405; message: string; headers: Record<string, string> } {
  const path = url.split('?')[0]!;
  // A catch-all route (`*`: the CORS preflight, when CORS is on) takes the whole path: it says nothing about which paths
  // exist; nor does a route whose parameter the path leaves empty (/plants/ for /plants/:id).
  const allowed = app.supportedMethods.filter((served) => {
    const route = app.findRoute({ method: served, url: path }) as { params: object } | null; // null: its type omits it
    return route !== null && Object.entries(route.params).every(([name, value]) => value !== (name === '*' ? path : ''));
  });
  // A route of this method that found nothing (a file under /docs/static that is not there) is 404.
  if (allowed.length === 0 || allowed.includes(method)) return { status: 404, message: nothingAt(method, path), headers: {} };
  return { status: 405, message: methodNotAllowed(method, path, allowed), headers: { allow: allowed.join(', ') } };
}

/** Messages for Fastify's own client errors, so each says what to do. */
function frameworkMessage(error: FastifyError, request: FastifyRequest): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return request.headers['content-type'] === undefined
        ? MESSAGES.noContentType
        : fill(MESSAGES.notJsonContentType, clip(request.headers['content-type']));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return fill(MESSAGES.bodyTooLarge, request.routeOptions.bodyLimit);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return MESSAGES.emptyBody;
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return MESSAGES.contentLengthMismatch;
    default:
      return error.message;
  }
}

export default fp(
  async function answers(app: FastifyInstance) {
    const notFound = (request: FastifyRequest, reply: FastifyReply) => {
      const { status, message, headers } = noRoute(app, request.method, request.url);
      return sendError(reply.headers(headers), status, message);
    };
    app.setNotFoundHandler(notFound);

    app.setErrorHandler((error: FastifyError, request, reply) => {
      // Fastify refuses a QUERY without Content-Type before it looks for a route; no route here serves QUERY.
      if (error.code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE' && request.is404) return notFound(request, reply);
      if (error.validation) return sendError(reply, 400, describeValidation(error.validationContext, error.validation[0]!));
      // Errors that know when a retry can succeed (a busy database) say so, as 429s do.
      const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
      if (typeof retryAfter === 'number') reply.header('retry-after', retryAfter);
      // A 415 for the body's coding names the one it takes (RFC 9110, 12.5.3).
      if (error.code === 'PLANT_STORE_UNSUPPORTED_CONTENT_ENCODING') reply.header('accept-encoding', 'identity');
      const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode <= 599 ? error.statusCode : 500;
      // @fastify/static (the docs' files) refuses a path that climbs out of its folder with 403: to a client,
      // as for any path, there is nothing there. No answer of the API is a 403.
      if (status === 403 && !isPublicError(error)) return sendError(reply, 404, nothingAt(request.method, request.url.split('?')[0]!));
      // A refusal to retry later (a write past the lock's bound, a shed request) is not a fault of ours, but
      // an operator must see it: a warning, with the request id (the request's logger adds it).
      if (status === 503 && (isPublicError(error) || typeof retryAfter === 'number'))
        request.log.warn({ code: error.code, retryAfter }, `answered 503: ${error.message}`);
      else if (status >= 500 && !isPublicError(error)) {
        request.log.error({ err: error }, 'request failed');
        const message = `Something went wrong on our side; it is logged as request ${request.id}. Please retry.`;
        return sendError(reply, status === 503 ? 503 : 500, message);
      }
      return sendError(reply, status, frameworkMessage(error, request));
    });

    // Without a listener Node answers 417 with an empty body; with one, the answer is ours.
    app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
      sendError(response, 417, new UnsupportedExpectation(clip(String(request.headers.expect), 40)).message, requestIdOf(request));
    });
    // Node hands CONNECT to a 'connect' listener and, with none, drops the socket unanswered. This is no
    // proxy: the answer is the one any other method no route serves gets (405 with Allow, or 404).
    app.server.on('connect', (request: IncomingMessage, socket: Socket) => {
      const { status, message, headers } = noRoute(app, 'CONNECT', String(request.url));
      refuse(app, socket, status, message, requestIdOf(request), headers);
    });
  },
  { name: 'answers', dependencies: ['connection'] },
);
