// Liveness and readiness, open to everyone.
import { handler, type Handlers } from '../contract/operation-routes.js';
import { DatabaseUnavailable } from '../errors.js';

export const healthHandlers: Handlers = {
  getHealth: handler(async () => ({ status: 'ok' })),
  getReadiness: handler(async (request) => {
    if (!(await request.server.store.isReady())) throw new DatabaseUnavailable();
    return { status: 'ok' };
  }),
};
