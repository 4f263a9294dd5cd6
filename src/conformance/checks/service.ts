// The open operations: the served contract is the one this package ships, and health answers.
import type { JsonObject } from '../contract-file.js';
import { jsonDifferences } from '../json-differences.js';
import { seen, status, type Run } from '../run.js';

export async function serviceChecks(run: Run, contract: JsonObject): Promise<void> {
  await run.check('GET /openapi.json', 'serves the contract this command ships with', '200 with a document equal to openapi.yaml', async () => {
    const exchange = await run.http.send('GET', '/openapi.json');
    if (exchange.status !== 200) return status(exchange, 200);
    const differences = jsonDifferences(contract, JSON.parse(exchange.body));
    const listed = differences.slice(0, 10).join(', ') + (differences.length > 10 ? `, and ${differences.length - 10} more` : '');
    return { ok: differences.length === 0, actual: differences.length === 0 ? '200, equal' : `200, differs at ${listed}` };
  });
  for (const path of ['/healthz', '/readyz']) {
    await run.check(`GET ${path}`, 'answers without a token', '200 {"status":"ok"}', async () => {
      const exchange = await run.http.send('GET', path);
      return { ok: exchange.status === 200 && exchange.body === '{"status":"ok"}', actual: seen(exchange) };
    });
  }
}
