// The Redis connection of the shared rate limits, set up so that a dead or hung Redis never holds a
// request up: nothing is queued while disconnected, every command has a deadline, and reconnection
// goes on in the background.
import { Redis } from 'ioredis';
import type { StoreOutage } from './store-outage.js';

/** Longest wait for a command's answer. Redis answers in well under a millisecond; this is the bound a hung one adds. */
export const COMMAND_TIMEOUT_MS = 500;
/** Longest wait for a connection (TCP and TLS) to open. */
export const CONNECT_TIMEOUT_MS = 1000;
/** Reconnection attempts back off up to this interval, so a returning Redis is used again within a second. */
const MAX_RECONNECT_DELAY_MS = 1000;

export function redisClient(url: string, outage: StoreOutage): Redis {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // Disconnected, a command fails at once instead of waiting in a queue for the connection.
    enableOfflineQueue: false,
    // Commands in flight when the connection drops fail at once; they are not sent again later.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
    connectionName: 'plant-store',
  });
  // Without a listener ioredis prints every failed reconnection attempt to the console.
  client.on('error', (error: Error) => outage.connectionLost(error));
  client.on('close', () => outage.connectionLost(new Error('the connection to Redis closed')));
  client.on('ready', () => outage.answered());
  return client;
}

/** Connects, waiting at most CONNECT_TIMEOUT_MS; a Redis that does not answer is not waited for (the limits fail open meanwhile). */
export async function connectOrCarryOn(client: Redis): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, CONNECT_TIMEOUT_MS)));
  await Promise.race([client.connect().catch(() => undefined), deadline]);
  clearTimeout(timer);
}
