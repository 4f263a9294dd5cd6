// Route options for an operation of openapi.yaml: method, URL and schema come from generated/.
import type { FastifySchema, HTTPMethods } from 'fastify';
import { operations, type OperationId } from '../../generated/schemas.js';

/**
 * HEAD as the contract says in words: an open GET answers it too (RFC 9110, 9.3.2: the same status and
 * headers, no body), as load balancers and link checkers expect; a protected one does not.
 */
export function operation(id: OperationId): { method: HTTPMethods; url: string; schema: FastifySchema; exposeHeadRoute: boolean } {
  const { method, url, schema, public: open } = operations[id];
  return { method, url, schema, exposeHeadRoute: open };
}
