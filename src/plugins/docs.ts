// The contract, served: /openapi.json, /openapi.yaml and Swagger UI at /docs (all assets local).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument, openApiYaml } from '../../generated/openapi.js';
import { operation } from '../routes/operation.js';

export default async function docs(app: FastifyInstance) {
  const documentJson = JSON.stringify(openApiDocument);

  await app.register(swagger, { mode: 'static', specification: { document: openApiDocument as never } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // No staticCSP: the plugin's own policy would replace helmet's on these pages with a looser
    // one (https: styles and fonts, validator.swagger.io) that still blocks Swagger UI's inline styles.
    uiConfig: { persistAuthorization: false, tryItOutEnabled: true },
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
