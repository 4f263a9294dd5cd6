// Load shedding with @fastify/under-pressure: past its bounds (event-loop delay, heap) a request is answered
// at once with 503, Retry-After and the Error shape instead of queueing; /readyz is shed too, so a load
// balancer steers away, while /healthz (the process is up) is always answered.
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Overloaded, retryLater } from '../errors.js';

/** Seconds a shed client waits: under-pressure samples every second, so by then the state has been measured again. */
const RETRY_AFTER_SECONDS = 2;

export default fp(
  async function loadShedding(app: FastifyInstance, options: { eventLoopDelayMs: number; heapUsedBytes: number }) {
    await app.register(underPressure, {
      maxEventLoopDelay: options.eventLoopDelayMs,
      maxHeapUsedBytes: options.heapUsedBytes,
      pressureHandler: async (request, _reply, type, value) => {
        if (request.routeOptions.config.operationId === 'getHealth') return;
        request.log.warn({ pressure: type, value }, 'overloaded: request shed with 503');
        throw retryLater(new Overloaded(RETRY_AFTER_SECONDS), RETRY_AFTER_SECONDS);
      },
    });
  },
  { name: 'load-shedding', dependencies: ['error-handler'] },
);
