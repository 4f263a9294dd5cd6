// The contract itself, served: /openapi.json and /openapi.yaml (as contract/served-contract.ts makes them).
import type { Handlers } from '../contract/operation-routes.js';
import type { ServedContract } from '../contract/served-contract.js';

export function contractDocumentHandlers(served: ServedContract) {
  return {
    getOpenApiJson: async (_request, reply) => reply.type('application/json; charset=utf-8').code(200).send(served.json),
    getOpenApiYaml: async (_request, reply) => reply.type('application/yaml; charset=utf-8').code(200).send(served.yaml),
  } satisfies Partial<Handlers>;
}
