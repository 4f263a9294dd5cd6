// What timing the store calls costs a request, in one process, without HTTP or a database: a request's two calls
// (findToken, listPlants) on a store that answers at once, through the plain handle, through the traced handle
// with a subscriber that does nothing, and with the metrics' histogram (src/observability/store-metrics.ts).
// Not part of `npm run bench`; for the metrics question of issue 31 (bench/findings.md):
//   npx tsc -p bench/tsconfig.json && node dist/bench/store-call-cost.js [requests per round]
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { storeCallTimes } from '../src/observability/channels.js';
import { measureStore } from '../src/observability/store-metrics.js';
import { TracedStore } from '../src/observability/traced-store.js';
import type { PlantStore, Store } from '../src/store/plant-store.js';
import { median } from './stats.js';

const requests = Number(process.argv[2] ?? 300_000);
const ROUNDS = 7;
const store = {
  findToken: async () => ({ tokenId: 1, user: 'bench' }),
  listPlants: async () => ({ items: [], next: undefined }),
} as unknown as PlantStore;

/** Median µs per request over the rounds after the first (which warms up). */
async function perRequest(handle: () => PlantStore): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < requests; i++) {
      const request = handle();
      await request.findToken('token');
      await request.listPlants('bench', undefined, 20);
    }
    if (round > 0) rounds.push(((performance.now() - started) * 1000) / requests);
  }
  return median(rounds);
}

const plain = await perRequest(() => store);
const ignore = () => undefined;
storeCallTimes.subscribe(ignore);
const traced = await perRequest(() => new TracedStore(store, 'sqlite'));
storeCallTimes.unsubscribe(ignore);
measureStore(new Registry(), { kind: 'sqlite' } as Store);
const metrics = await perRequest(() => new TracedStore(store, 'sqlite'));
console.log(`µs per request (2 store calls), median of ${ROUNDS - 1} rounds of ${requests.toLocaleString('en')}:`);
console.log(`  plain handle ${plain.toFixed(2)}, traced handle ${traced.toFixed(2)}, with the histogram ${metrics.toFixed(2)}`);
