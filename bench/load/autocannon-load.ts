// Runs a plan with autocannon in this process. Latency comes from each response's own time
// (autocannon's histogram keeps whole milliseconds only, too coarse for p50 on a fast server).
import autocannon from 'autocannon';
import { newPlantBody, type LoadRequest, type LoadResult } from './plan.js';
import { tokensInRank, usersMix } from './users-mix.js';
import { percentile } from '../stats.js';

type Request = autocannon.Request;

function requests({ plan, tokens }: LoadRequest): Request[] {
  const ids = (firstId: number, step: number) => {
    let id = firstId;
    return () => {
      const current = id;
      id += step;
      return current;
    };
  };
  const post = (next: () => number): Request => ({
    method: 'POST',
    path: '/plants',
    headers: { 'content-type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: newPlantBody(next()) }),
  });
  switch (plan.kind) {
    case 'get':
      return [{ method: 'GET', path: plan.path }];
    case 'get-any': {
      const { paths } = plan;
      return [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[Math.floor(Math.random() * paths.length)]! }) }];
    }
    case 'post':
      return [post(ids(plan.firstId, plan.step))];
    case 'delete': {
      const next = ids(plan.firstId, 1);
      return [{ method: 'DELETE', setupRequest: (request) => ({ ...request, path: `/plants/${next()}` }) }];
    }
    case 'mix': {
      const write = post(ids(plan.firstId, plan.step));
      return [...Array.from({ length: plan.writeEvery - 1 }, (): Request => ({ method: 'GET', path: plan.path })), write];
    }
    case 'users-mix': {
      const next = usersMix(plan);
      const byUser = new Map(tokensInRank(plan, tokens).map((token, rank) => [plan.users[rank]!, `Bearer ${token}`]));
      return [
        {
          setupRequest: (request) => {
            const call = next();
            const headers: Record<string, string> = { ...request.headers, authorization: byUser.get(call.user)! };
            if (call.body !== undefined) headers['content-type'] = 'application/json';
            return { ...request, method: call.method, path: call.path, headers, ...(call.body !== undefined && { body: call.body }) };
          },
        },
      ];
    }
  }
}

export async function runAutocannon(load: LoadRequest): Promise<LoadResult> {
  const latencies: number[] = [];
  const instance = autocannon({
    url: load.url,
    connections: load.connections,
    duration: load.seconds,
    headers: { authorization: `Bearer ${load.token}` },
    requests: requests(load),
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
  };
}
