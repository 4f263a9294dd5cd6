// Liveness and readiness, open to everyone.
import type { Handlers } from '../contract/operation-routes.js';
import { DatabaseUnavailable } from '../errors.js';

export const healthHandlers = {
  getHealth: async () => ({ status: 'ok' }),
  getReadiness: async (request) => {
    if (!(await request.server.store.isReady())) throw new DatabaseUnavailable();
    return { status: 'ok' };
  },
} satisfies Partial<Handlers>;
