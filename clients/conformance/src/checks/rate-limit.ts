// --rate-limit: the per-token limit answers 429 with Retry-After. It spends the token's budget for up
// to a minute, so it runs last, after this run's plants are deleted.
import { seen, type Run } from '../run.js';
import type { Exchange } from '../http.js';

const MAX_REQUESTS = 50_000;
const MAX_SECONDS = 120;
const PARALLEL = 16;

export async function rateLimitCheck(run: Run): Promise<void> {
  await run.check(
    'GET /plants',
    'limits requests per token',
    `429 with Retry-After within ${MAX_REQUESTS} requests, then for POST and DELETE too`,
    async () => {
      const deadline = Date.now() + MAX_SECONDS * 1000;
      let sent = 0;
      let limited: Exchange | undefined;
      const worker = async () => {
        while (limited === undefined && sent < MAX_REQUESTS && Date.now() < deadline) {
          sent++;
          const exchange = await run.http.send('GET', '/plants?limit=1', { token: run.options.token });
          if (exchange.status === 429) limited ??= exchange;
          else if (exchange.status !== 200) return;
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
      if (limited === undefined) return { ok: false, actual: `no 429 after ${sent} requests` };
      // The budget is the token's, on every operation: a create (of a body that could store nothing) and a
      // delete (of an id of this run's block, which holds nothing now) are limited too.
      const post = await run.http.send('POST', '/plants', { token: run.options.token, body: '{}' });
      const remove = await run.http.send('DELETE', `/plants/${run.id(999)}`, { token: run.options.token });
      const retry = (exchange: Exchange) => exchange.status === 429 && /^\d+$/.test(exchange.headers['retry-after'] ?? '');
      return {
        ok: retry(limited) && retry(post) && retry(remove),
        actual: `after ${sent} requests: ${seen(limited, ['Retry-After'])}; then POST ${seen(post, ['Retry-After'])}; DELETE ${seen(remove, ['Retry-After'])}`,
      };
    },
  );
}
