// Swagger UI at /docs (all assets local), in a scope of its own; the documents it reads are operations (routes/contract-documents.ts).
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from '../../generated/openapi.js';
import { docsBrand } from './docs-brand.js';
import { documentSecurityHeaders } from './security-headers.js';

export default async function docs(app: FastifyInstance) {
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
}
