// One error handler and one not-found handler for the whole app: every non-2xx answer
// is the Error shape {error, message} with error equal to the HTTP status.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { clip, describeValidation, fill, MESSAGES, methodNotAllowed, nothingAt, type ValidationIssue } from '../error-messages.js';
import { isPublicError } from '../errors.js';
import { BODY_LIMIT } from './json-body.js';
import { methodsAt, type RouteEntry } from './route-table.js';

/** The docs' file server (@fastify/send) refuses with http-errors' bare names ("Range Not Satisfiable"), and no code. */
const FILE_MESSAGES: Record<number, string> = {
  400: 'The path is not a file name that can be looked up; see /docs.',
  412: 'The file is not the version If-Match or If-Unmodified-Since names; fetch it again without them.',
  416: 'The range asked for is outside the file; Content-Range gives its length.',
};

/** Messages for Fastify's own client errors, so each says what to do. */
function frameworkMessage(error: FastifyError, request: FastifyRequest): string {
  if (!error.code && FILE_MESSAGES[error.statusCode ?? 0] !== undefined) return FILE_MESSAGES[error.statusCode!]!;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return request.headers['content-type'] === undefined
        ? MESSAGES.noContentType
        : fill(MESSAGES.notJsonContentType, clip(request.headers['content-type']));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return fill(MESSAGES.bodyTooLarge, BODY_LIMIT);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return MESSAGES.emptyBody;
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return MESSAGES.contentLengthMismatch;
    default:
      return error.message;
  }
}

export function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ error: status, message });
}

/** The answer to a method no route of the path serves: 405 with Allow when the path has routes, else 404. */
export function noRoute(table: RouteEntry[], method: string, url: string): { status: 404 | 405; message: string; allow?: string } {
  const path = url.split('?')[0]!;
  const allowed = methodsAt(table, path);
  // A route of this method that found nothing (a file under /docs/static that is not there) is 404.
  if (allowed.length > 0 && !allowed.includes(method))
    return { status: 405, message: methodNotAllowed(method, path, allowed), allow: allowed.join(', ') };
  return { status: 404, message: nothingAt(method, path) };
}

export default fp(
  async function errorHandler(app: FastifyInstance) {
    const notFound = (request: FastifyRequest, reply: FastifyReply) => {
      const { status, message, allow } = noRoute(app.routeTable, request.method, request.url);
      if (allow !== undefined) reply.header('allow', allow);
      return sendError(reply, status, message);
    };
    app.setNotFoundHandler(notFound);

    app.setErrorHandler((error: FastifyError, request, reply) => {
      // Fastify refuses a QUERY without Content-Type before it looks for a route; no route here serves QUERY.
      if (error.code === 'FST_ERR_ROUTE_MISSING_CONTENT_TYPE' && request.is404) return notFound(request, reply);
      if (error.validation) {
        return sendError(reply, 400, describeValidation(error.validationContext, error.validation[0] as ValidationIssue));
      }
      // Errors that know when a retry can succeed (a busy database) say so, as 429s do.
      const retryAfter = (error as { retryAfter?: unknown }).retryAfter;
      if (typeof retryAfter === 'number') reply.header('retry-after', retryAfter);
      // A 415 for the body's coding names the one it takes (RFC 9110, 12.5.3).
      if (error.code === 'PLANT_STORE_UNSUPPORTED_CONTENT_ENCODING') reply.header('accept-encoding', 'identity');
      // A 416 says how long the file is (RFC 9110, 15.5.17): the file server gives it with its error.
      const range = (error as { headers?: Record<string, string> }).headers?.['Content-Range'];
      if (error.statusCode === 416 && range !== undefined) reply.header('content-range', range);
      const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode <= 599 ? error.statusCode : 500;
      // @fastify/static (the docs' files) refuses a path that climbs out of its folder with 403: to a client,
      // as for any path, there is nothing there. No answer of the API is a 403.
      if (status === 403 && !isPublicError(error)) return sendError(reply, 404, nothingAt(request.method, request.url.split('?')[0]!));
      // A refusal to retry later (a write past the lock's bound, a shed request) is not a fault of ours, but
      // an operator must see it: a warning, with the request id (the request's logger adds it).
      if (status === 503 && (isPublicError(error) || typeof retryAfter === 'number')) {
        request.log.warn({ code: error.code, retryAfter }, `answered 503: ${error.message}`);
        return sendError(reply, 503, frameworkMessage(error, request));
      }
      if (status >= 500 && !isPublicError(error)) {
        request.log.error({ err: error }, 'request failed');
        return sendError(
          reply,
          status === 503 ? 503 : 500,
          `Something went wrong on our side; it is logged as request ${request.id}. Please retry.`,
        );
      }
      return sendError(reply, status, frameworkMessage(error, request));
    });
  },
  { name: 'error-handler', dependencies: ['route-table'] },
);
