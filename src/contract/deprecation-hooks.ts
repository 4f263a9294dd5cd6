// The Deprecation, Sunset and Link rel="deprecation" headers of the answers openapi.yaml deprecates, as an
// onSend hook of the deprecated routes only: an operation nothing deprecates gets no hook and pays nothing.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { deprecationHeaders, deprecations, deprecationsFor } from '@plant-store/conformance/deprecation';
import { deprecatedRequests, type DeprecatedRequest } from '../channels.js';

type OnSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown>;

/** The onSend hook of each operation the contract deprecates (or some of whose parameters), by operationId. */
export function deprecationHooks(document: Record<string, unknown>): Map<string, OnSend> {
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
