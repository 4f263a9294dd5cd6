// Runs a plan with autocannon in this process. Latency comes from each response's own time
// (autocannon's histogram keeps whole milliseconds only, too coarse for p50 on a fast server).
import autocannon from 'autocannon';
import { newPlantBody, type LoadRequest, type LoadResult, type RequestPlan } from './plan.js';
import { percentile } from '../stats.js';

type Request = autocannon.Request;

function requests(plan: RequestPlan, next: () => number): Request[] {
  const post: Request = {
    method: 'POST',
    path: '/plants',
    headers: { 'content-type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: newPlantBody(next()) }),
  };
  switch (plan.kind) {
    case 'get':
      return [{ method: 'GET', path: plan.path }];
    case 'get-any': {
      const { paths } = plan;
      return [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[Math.floor(Math.random() * paths.length)]! }) }];
    }
    case 'post':
      return [post];
    case 'delete':
      return [{ method: 'DELETE', setupRequest: (request) => ({ ...request, path: `/plants/${next()}` }) }];
    case 'mix':
      return [...Array.from({ length: plan.writeEvery - 1 }, (): Request => ({ method: 'GET', path: plan.path })), post];
  }
}

export async function runAutocannon(load: LoadRequest): Promise<LoadResult> {
  const { plan } = load;
  let nextId = 'firstId' in plan ? plan.firstId : 0;
  const firstId = nextId;
  const latencies: number[] = [];
  const instance = autocannon({
    url: load.url,
    connections: load.connections,
    duration: load.seconds,
    headers: { authorization: `Bearer ${load.token}` },
    requests: requests(plan, () => nextId++),
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode < 300) latencies.push(responseTime);
  });
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const answered = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    requests: result['2xx'],
    seconds: result.duration,
    unexpected: answered - result['2xx'],
    errors: result.errors + result.timeouts,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    idsUsed: nextId - firstId,
  };
}
