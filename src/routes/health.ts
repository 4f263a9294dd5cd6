// Liveness and readiness, open to everyone.
import type { FastifyInstance } from 'fastify';
import { DatabaseUnavailable } from '../errors.js';
import { operation } from '../contract/operation.js';

export default async function healthRoutes(app: FastifyInstance) {
  app.route({ ...operation('getHealth'), handler: async () => ({ status: 'ok' }) });
  app.route({
    ...operation('getReadiness'),
    handler: async () => {
      if (!(await app.store.isReady())) throw new DatabaseUnavailable();
      return { status: 'ok' };
    },
  });
}
