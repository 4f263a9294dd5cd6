// --rate-limit: the per-token limit answers 429 with Retry-After. It spends the token's budget for up
// to a minute, so it runs last, after this run's plants are deleted.
import { seen, type Run } from '../run.js';
import type { Exchange } from '../http.js';

const MAX_REQUESTS = 50_000;
const MAX_SECONDS = 120;
const PARALLEL = 16;

export async function rateLimitCheck(run: Run): Promise<void> {
  await run.check('GET /plants', 'limits requests per token', `429 with Retry-After, within ${MAX_REQUESTS} requests`, async () => {
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
    return { ok: /^\d+$/.test(limited.headers['retry-after'] ?? ''), actual: `after ${sent} requests: ${seen(limited, ['Retry-After'])}` };
  });
}
