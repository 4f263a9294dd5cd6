// The open operations: the served contract is the one this package ships, and health answers.
import type { JsonObject } from '../contract-file.js';
import { jsonDifferences } from '../json-differences.js';
import { seen, status, type Run } from '../run.js';

export async function serviceChecks(run: Run, contract: JsonObject): Promise<void> {
  await run.check(
    'GET /openapi.json',
    'serves the contract this command ships with',
    '200 with a document equal to openapi.yaml',
    async () => {
      const exchange = await run.http.send('GET', '/openapi.json');
      if (exchange.status !== 200) return status(exchange, 200);
      const differences = jsonDifferences(contract, asShipped(JSON.parse(exchange.body) as JsonObject, contract));
      const listed = differences.slice(0, 10).join(', ') + (differences.length > 10 ? `, and ${differences.length - 10} more` : '');
      return { ok: differences.length === 0, actual: differences.length === 0 ? '200, equal' : `200, differs at ${listed}` };
    },
  );
  for (const path of ['/healthz', '/readyz']) {
    await run.check(`GET ${path}`, 'answers without a token', '200 {"status":"ok"}', async () => {
      const exchange = await run.http.send('GET', path);
      return { ok: exchange.status === 200 && exchange.body === '{"status":"ok"}', actual: seen(exchange) };
    });
  }
}

/**
 * A deployment with an identity provider serves that provider's discovery URL in place of openapi.yaml's
 * placeholder, and one without serves no `oidc` scheme at all (contract/served-contract.ts): the two
 * differences that are not differences of contract.
 */
function asShipped(served: JsonObject, contract: JsonObject): JsonObject {
  const schemes = (document: JsonObject) =>
    (document.components as { securitySchemes?: Record<string, { openIdConnectUrl?: unknown }> } | undefined)?.securitySchemes;
  const scheme = (document: JsonObject) => schemes(document)?.oidc;
  if (scheme(served) === undefined && scheme(contract) !== undefined && schemes(served) !== undefined) {
    const copy = structuredClone(served);
    schemes(copy)!.oidc = structuredClone(scheme(contract)!);
    const withoutOidc = (list: unknown) =>
      Array.isArray(list) ? list.filter((entry) => !(entry instanceof Object && 'oidc' in entry)) : list;
    if (JSON.stringify(withoutOidc(contract.security)) === JSON.stringify(served.security))
      copy.security = structuredClone(contract.security);
    return copy;
  }
  const url = scheme(served)?.openIdConnectUrl;
  const placeholder = scheme(contract)?.openIdConnectUrl;
  if (typeof url !== 'string' || !/^https?:\/\/[^?#]+\/\.well-known\/openid-configuration$/.test(url) || placeholder === undefined)
    return served;
  const copy = structuredClone(served);
  scheme(copy)!.openIdConnectUrl = placeholder;
  return copy;
}
