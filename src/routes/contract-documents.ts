// The contract itself, served: /openapi.json and /openapi.yaml (as contract/served-contract.ts makes them).
import { handler, type Handlers } from '../contract/operation-routes.js';
import type { ServedContract } from '../contract/served-contract.js';

export function contractDocumentHandlers(served: ServedContract): Handlers {
  return {
    getOpenApiJson: handler((_request, reply) => reply.type('application/json; charset=utf-8').send(served.json)),
    getOpenApiYaml: handler((_request, reply) => reply.type('application/yaml; charset=utf-8').send(served.yaml)),
  };
}
