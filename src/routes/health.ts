// Liveness and readiness, open to everyone; a store that is not ready says why (a full disk is not an unreachable database).
import type { Handlers } from '../contract/operation-routes.js';
import { DatabaseUnavailable, NotReadyDamaged, NotReadyDiskFull, NotReadyFileGone } from '../errors.js';
import type { Readiness } from '../store/plant-store.js';

const notReady: Record<Exclude<Readiness, 'ready'>, new () => Error> = {
  unreachable: DatabaseUnavailable,
  'disk-full': NotReadyDiskFull,
  damaged: NotReadyDamaged,
  'file-gone': NotReadyFileGone,
};

export const healthHandlers = {
  getHealth: async () => ({ status: 'ok' }),
  getReadiness: async (request) => {
    const readiness = await request.server.store.readiness();
    if (readiness !== 'ready') throw new notReady[readiness]();
    return { status: 'ok' };
  },
} satisfies Partial<Handlers>;
