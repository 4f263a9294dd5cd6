// Registers every operation of openapi.yaml with its handler, in the open scope or the protected one as the operation's
// `security` says, with the Deprecation, Sunset and Link headers where it deprecates; start-up fails when handlers and operations differ.
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteHandlerMethod,
} from 'fastify';
import { deprecationHeaders, deprecations, deprecationsFor } from '@plant-store/conformance/deprecation';
import { openApiDocument } from '../../generated/openapi.js';
import { operations, type OperationId } from '../../generated/schemas.js';
import { deprecatedRequests, type DeprecatedRequest } from '../channels.js';
import type { operations as Contract } from '../../generated/types.js';
import type { JsonText } from './json-text.js';

/** A JSON media type (`application/json`, `application/...+json`): its body may also be sent as ready JSON text. */
type JsonMediaType = 'application/json' | `${string}+json`;

/** The body of one declared response, in any of its media types; `undefined` when it has none (204). */
type ResponseBody<Response> = Response extends { content: infer Content }
  ? { [Media in keyof Content]: Media extends JsonMediaType ? Content[Media] | JsonText<Content[Media]> : Content[Media] }[keyof Content]
  : undefined;

/** The request and reply of an operation as Fastify types a route: `Reply` by status, so `reply.code(n)` takes only a declared status. */
export interface OperationRoute<Id extends OperationId> {
  Params: Contract[Id]['parameters']['path'];
  Querystring: NonNullable<Contract[Id]['parameters']['query']>;
  Body: NonNullable<Contract[Id]['requestBody']> extends { content: infer Content } ? Content[keyof Content] : never;
  Reply: { [Status in keyof Contract[Id]['responses']]: ResponseBody<Contract[Id]['responses'][Status]> };
}

/** The handler of one operation, its request and reply typed from openapi.yaml. */
export type OperationHandler<Id extends OperationId> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  OperationRoute<Id>
>;

/**
 * A handler for every operation of openapi.yaml and none other, by operationId: after `npm run generate`,
 * an operation without a handler, a handler without an operation, or a request or reply that differs from the
 * contract fails to compile, naming the operationId. The handlers live in src/routes/ (the plant operations in
 * plants.ts) and are joined in src/app.ts.
 */
export type Handlers = { [Id in OperationId]: OperationHandler<Id> };

/** Where the handlers live, for the start-up check's message (a `tsx` run does not type-check). */
export const HANDLERS_LOCATION = 'src/routes/ (the plant operations in src/routes/plants.ts), joined in src/app.ts';

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

type OnSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown>;

/** The onSend hook of each operation the contract deprecates (or a parameter of), by operationId: others pay nothing. */
function deprecationHooks(document: Record<string, unknown>): Map<string, OnSend> {
  const hooks = new Map<string, OnSend>();
  for (const deprecated of deprecations(document)) {
    const operation = deprecated.operationId;
    if (operation === undefined) continue;
    // A deprecated operation's headers are the same on every answer: made once.
    const always = deprecated.parameters.size === 0 ? deprecationHeaders([deprecated.deprecated!]) : undefined;
    hooks.set(operation, async function announceDeprecation(request, reply, payload) {
      // Read from the URL as sent: validation has filled in the defaults of the parameters left out.
      const announced = deprecationsFor(deprecated, request.url);
      if (announced.length === 0) return payload;
      const headers = always ?? deprecationHeaders(announced);
      const link = reply.getHeader('link');
      // The page's own Link (rel="next") stays: the deprecation's link is one more value of the same field.
      reply.header('deprecation', headers.deprecation).header('sunset', headers.sunset);
      reply.header('link', link === undefined ? headers.link : `${String(link)}, ${headers.link}`);
      if (deprecatedRequests.hasSubscribers) deprecatedRequests.publish({ operation } satisfies DeprecatedRequest);
      return payload;
    });
  }
  return hooks;
}

/** One operation's route; generic in the operationId, so its handler and route types are the same operation's. */
function routeOf<Id extends OperationId>(scope: FastifyInstance, id: Id, handler: Handlers[Id], onSend: OnSend | undefined): void {
  // HEAD as the contract says in words: an open GET answers it too (RFC 9110, 9.3.2: the same status and
  // headers, no body), as load balancers and link checkers expect; a protected one does not.
  const { method, url, schema, public: exposeHeadRoute } = operations[id];
  // The operationId rides in the route's config: metrics label requests by it (src/plugins/metrics.ts).
  scope.route<OperationRoute<Id>>({ method, url, schema, exposeHeadRoute, config: { operationId: id }, onSend, handler });
}

export default async function operationRoutes(app: FastifyInstance, options: OperationRoutesOptions) {
  const ids = Object.keys(operations) as OperationId[];
  const problems = mismatches(ids, Object.keys(options.handlers));
  if (problems.length > 0)
    throw new Error(`the routes do not match openapi.yaml: ${problems.join('; ')} (handlers live in ${HANDLERS_LOCATION})`);
  const announce = deprecationHooks(options.document ?? openApiDocument);
  const route = (scope: FastifyInstance, id: OperationId) => routeOf<OperationId>(scope, id, options.handlers[id], announce.get(id));

  await app.register(async function openOperations(scope) {
    await options.open?.(scope);
    for (const id of ids.filter((id) => operations[id].public)) route(scope, id);
  });
  await app.register(async function protectedOperations(scope) {
    await options.protect(scope);
    for (const id of ids.filter((id) => !operations[id].public)) route(scope, id);
  });
}
