// The contract, served: /openapi.json, /openapi.yaml, and Swagger UI at /docs (all assets local) in a scope of its own.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument, openApiYaml } from '../../generated/openapi.js';
import { operation } from '../contract/operation.js';
import { docsBrand } from './docs-brand.js';
import { documentSecurityHeaders } from './security-headers.js';

export default async function docs(app: FastifyInstance) {
  const documentJson = JSON.stringify(openApiDocument);

  await app.register(swagger, { mode: 'static', specification: { document: openApiDocument as never } });
  // Pages for people, unlike every other answer: the scope gets the document set of security headers.
  await app.register(async function swaggerUiScope(ui) {
    await ui.register(documentSecurityHeaders);
    await ui.register(swaggerUi, {
      routePrefix: '/docs',
      // The document headers cover the UI: it needs only this origin.
      staticCSP: false,
      uiConfig: { persistAuthorization: false, tryItOutEnabled: true },
      ...docsBrand,
    });
  });

  app.route({
    ...operation('getOpenApiJson'),
    handler: (_request, reply) => reply.type('application/json; charset=utf-8').send(documentJson),
  });
  app.route({
    ...operation('getOpenApiYaml'),
    handler: (_request, reply) => reply.type('application/yaml; charset=utf-8').send(openApiYaml),
  });
}
