// Counts the SQLite store's commits as metrics and traces see them: on the `plant-store:commit` channel.
import type { Test } from 'tap';
import { commits } from '../../../src/channels.js';

export function countCommits(t: Test): { count: number } {
  const counted = { count: 0 };
  const handlers = {
    start: () => {
      counted.count++;
    },
    end: () => undefined,
    asyncStart: () => undefined,
    asyncEnd: () => undefined,
    error: () => undefined,
  };
  commits.subscribe(handlers);
  t.teardown(() => commits.unsubscribe(handlers));
  return counted;
}
