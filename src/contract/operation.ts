// Route options for an operation of openapi.yaml: method, URL and schema come from generated/.
import type { FastifySchema, HTTPMethods } from 'fastify';
import { operations, type OperationId } from '../../generated/schemas.js';

export function operation(id: OperationId): { method: HTTPMethods; url: string; schema: FastifySchema } {
  const { method, url, schema } = operations[id];
  return { method, url, schema };
}
