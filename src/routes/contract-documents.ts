// The contract itself, served: /openapi.json and /openapi.yaml.
import { openApiDocument, openApiYaml } from '../../generated/openapi.js';
import { handler, type Handlers } from '../contract/operation-routes.js';

const documentJson = JSON.stringify(openApiDocument);

export const contractDocumentHandlers: Handlers = {
  getOpenApiJson: handler((_request, reply) => reply.type('application/json; charset=utf-8').send(documentJson)),
  getOpenApiYaml: handler((_request, reply) => reply.type('application/yaml; charset=utf-8').send(openApiYaml)),
};
