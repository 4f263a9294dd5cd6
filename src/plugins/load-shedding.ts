// Load shedding with @fastify/under-pressure: past its bounds (event-loop delay, heap) a request is answered
// at once with 503, Retry-After and the Error shape instead of queueing; /readyz is shed too, so a load
// balancer steers away, while /healthz (the process is up) is always answered.
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { inSeconds, Overloaded, retryLater } from '../errors.js';

/** How often under-pressure measures (its default, said here because the grace below counts in it). */
const SAMPLE_INTERVAL_MS = 1000;
/** Seconds a shed client waits: by then the state has been measured again. */
const RETRY_AFTER_SECONDS = 2;
/**
 * Shedding starts two measures after the server listens: the first may still cover the start-up (loading
 * modules, opening the database, compiling schemas), whose delay is not load. An app that never listens
 * (app.inject) never sheds.
 */
export const START_GRACE_MS = 2 * SAMPLE_INTERVAL_MS;

export default fp(
  async function loadShedding(app: FastifyInstance, options: { eventLoopDelayMs: number; heapUsedBytes: number }) {
    let listeningSince = Infinity;
    app.addHook('onListen', async () => {
      listeningSince = performance.now();
    });
    await app.register(underPressure, {
      maxEventLoopDelay: options.eventLoopDelayMs,
      maxHeapUsedBytes: options.heapUsedBytes,
      sampleInterval: SAMPLE_INTERVAL_MS,
      pressureHandler: async (request, _reply, type, value) => {
        if (request.routeOptions.config.operationId === 'getHealth' || performance.now() - listeningSince < START_GRACE_MS) return;
        request.log.warn({ pressure: type, value }, 'overloaded: request shed with 503');
        throw retryLater(new Overloaded(inSeconds(RETRY_AFTER_SECONDS)), RETRY_AFTER_SECONDS);
      },
    });
  },
  { name: 'load-shedding', dependencies: ['answers'] },
);
