// Request ids: the client's X-Request-Id when it is a usable one, else a new UUID; every answer
// carries it, the log lines of the request carry it (pino's reqId), and a 500 names it.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Printable ASCII, 1 to 128 characters: anything else could smuggle text into logs or headers. Not a token
 * sent in the wrong header (pst_, or a JWT's eyJ): it would be logged and echoed.
 */
const USABLE = /^(?!pst_|eyJ)[\x20-\x7e]{1,128}$/;

/** Fastify's genReqId (its requestIdHeader is off, because Fastify would take any value as it is). */
export function requestIdOf(request: Pick<IncomingMessage, 'headers'>): string {
  const sent = request.headers['x-request-id'];
  return typeof sent === 'string' && USABLE.test(sent) ? sent : randomUUID();
}

export default fp(
  async function requestId(app: FastifyInstance) {
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      done();
    });
  },
  { name: 'request-id' },
);
