// Registers every operation of openapi.yaml with its handler, in the open scope or the protected
// one as the operation's `security` says; start-up fails when handlers and operations differ.
import type {
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
} from 'fastify';
import { openApiDocument } from '../../generated/openapi.js';
import { operations, type OperationId } from '../../generated/schemas.js';
import { deprecationHooks } from './deprecation-hooks.js';
import { operation } from './operation.js';

/** A handler for one operation, typed with that operation's request parts. */
export type OperationHandler<RouteGeneric extends RouteGenericInterface = RouteGenericInterface> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGeneric
>;

export type Handlers = Record<string, OperationHandler>;

/**
 * Lets a handler typed for its own query, params or body stand in the table of handlers: the
 * route schema generated for the operation validates those parts before the handler runs.
 */
export function handler<RouteGeneric extends RouteGenericInterface>(typed: OperationHandler<RouteGeneric>): OperationHandler {
  return typed as unknown as OperationHandler;
}

/** What differs between the contract's operations and the handlers, one phrase each; empty when they match. */
export function mismatches(operationIds: string[], handlerIds: string[]): string[] {
  return [
    ...operationIds.filter((id) => !handlerIds.includes(id)).map((id) => `operation ${id} has no handler`),
    ...handlerIds.filter((id) => !operationIds.includes(id)).map((id) => `handler ${id} has no operation in openapi.yaml`),
  ];
}

export interface OperationRoutesOptions {
  handlers: Handlers;
  /** The contract as served (contract/served-contract.ts), openapi.yaml by default: what it deprecates, its answers announce. */
  document?: Record<string, unknown>;
  /** Registers what the open scope adds to its routes (and routes of its own, such as the docs page). */
  open?: (scope: FastifyInstance) => Promise<void>;
  /** Registers what guards the protected scope (authentication, rate limit) in it. */
  protect: (scope: FastifyInstance) => Promise<void>;
}

export default async function operationRoutes(app: FastifyInstance, options: OperationRoutesOptions) {
  const ids = Object.keys(operations) as OperationId[];
  const problems = mismatches(ids, Object.keys(options.handlers));
  if (problems.length > 0) throw new Error(`the routes do not match openapi.yaml: ${problems.join('; ')}`);
  const announce = deprecationHooks(options.document ?? openApiDocument);
  // The operationId rides in the route's config: metrics label requests by it (src/plugins/metrics.ts).
  const route = (scope: FastifyInstance, id: OperationId) =>
    scope.route({ ...operation(id), config: { operationId: id }, ...announce(id), handler: options.handlers[id]! });

  await app.register(async function openOperations(scope) {
    await options.open?.(scope);
    for (const id of ids.filter((id) => operations[id].public)) route(scope, id);
  });
  await app.register(async function protectedOperations(scope) {
    await options.protect(scope);
    for (const id of ids.filter((id) => !operations[id].public)) route(scope, id);
  });
}
