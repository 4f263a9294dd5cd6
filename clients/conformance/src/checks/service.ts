// The open operations: the served contract is the one this package ships, and health answers.
import type { JsonObject } from '../contract-file.js';
import { parse } from 'yaml';
import { isJson, jsonDifferences } from '../json-differences.js';
import type { Exchange } from '../http.js';
import { seen, status, type Run, type Verdict } from '../run.js';

export async function serviceChecks(run: Run, contract: JsonObject): Promise<void> {
  await run.check(
    'GET /openapi.json',
    'serves the contract this command ships with',
    '200 with a document equal to openapi.yaml',
    async () => {
      const exchange = await run.http.send('GET', '/openapi.json');
      if (exchange.status !== 200) return status(exchange, 200);
      return compared(JSON.parse(exchange.body) as JsonObject, contract, '200');
    },
  );
  for (const path of ['/healthz', '/readyz']) {
    await run.check(`GET ${path}`, 'answers without a token', '200 {"status":"ok"}', async () => {
      const exchange = await run.http.send('GET', path);
      return { ok: exchange.status === 200 && isJson(exchange.body, { status: 'ok' }), actual: seen(exchange) };
    });
  }
  await run.check('GET /openapi.yaml', 'serves the contract as YAML too', '200 with a YAML document equal to openapi.yaml', async () => {
    const exchange = await run.http.send('GET', '/openapi.yaml');
    const type = exchange.headers['content-type'] ?? '(no content-type)';
    if (exchange.status !== 200) return status(exchange, 200);
    let served: JsonObject;
    try {
      const document: unknown = parse(exchange.body);
      if (typeof document !== 'object' || document === null) throw new Error('not a YAML mapping');
      served = document as JsonObject;
    } catch (error) {
      return { ok: false, actual: `200 ${type}, not a YAML document: ${(error as Error).message.split('\n')[0]}` };
    }
    return compared(served, contract, `200 ${type}`);
  });
  // openapi.yaml's `service` tag: the open operations also answer HEAD (RFC 9110 9.3.2), the plant operations do not.
  for (const path of openGetPaths(contract)) {
    await run.check(`GET ${path}`, 'answers HEAD as GET, without the body', 'the status and content-type of GET, no body', async () => {
      const get = await run.http.send('GET', path);
      const head = await run.http.send('HEAD', path);
      const type = (exchange: Exchange) => exchange.headers['content-type'] ?? '(none)';
      return {
        ok: head.status === get.status && type(head) === type(get) && head.body === '',
        actual: `HEAD ${head.status} ${type(head)}, ${head.body.length} bytes of body; GET ${get.status} ${type(get)}`,
      };
    });
  }
}

/** A served document against the shipped contract: equal, or the first ten places where it differs. */
function compared(served: JsonObject, contract: JsonObject, answered: string): Verdict {
  const differences = jsonDifferences(withoutUnconfiguredOidc(contract, served), asShipped(served, contract));
  const listed = differences.slice(0, 10).join(', ') + (differences.length > 10 ? `, and ${differences.length - 10} more` : '');
  return { ok: differences.length === 0, actual: differences.length === 0 ? `${answered}, equal` : `${answered}, differs at ${listed}` };
}

/** The GET operations openapi.yaml opens to everyone (`security: []`): those are the ones that answer HEAD. */
function openGetPaths(contract: JsonObject): string[] {
  return Object.entries((contract.paths ?? {}) as Record<string, { get?: { security?: unknown[] } }>)
    .filter(([path, item]) => !path.includes('{') && Array.isArray(item.get?.security) && item.get.security.length === 0)
    .map(([path]) => path);
}

/**
 * A deployment without an identity provider may leave the `oidc` scheme out of what it serves (it declares
 * what it accepts): then the shipped contract is compared without that scheme and the requirements naming it.
 */
function withoutUnconfiguredOidc(contract: JsonObject, served: JsonObject): JsonObject {
  const schemes = (document: JsonObject) => (document.components as { securitySchemes?: JsonObject } | undefined)?.securitySchemes;
  if (schemes(served)?.oidc !== undefined || schemes(contract)?.oidc === undefined) return contract;
  const copy = structuredClone(contract);
  delete schemes(copy)!.oidc;
  if (Array.isArray(copy.security)) copy.security = (copy.security as JsonObject[]).filter((requirement) => !('oidc' in requirement));
  return copy;
}

/**
 * A deployment with an identity provider serves that provider's discovery URL in place of openapi.yaml's
 * placeholder (contract/served-contract.ts): the one difference that is not a difference of contract.
 */
function asShipped(served: JsonObject, contract: JsonObject): JsonObject {
  const scheme = (document: JsonObject) =>
    (document.components as { securitySchemes?: Record<string, { openIdConnectUrl?: unknown }> } | undefined)?.securitySchemes?.oidc;
  const url = scheme(served)?.openIdConnectUrl;
  const placeholder = scheme(contract)?.openIdConnectUrl;
  if (typeof url !== 'string' || !/^https?:\/\/[^?#]+\/\.well-known\/openid-configuration$/.test(url) || placeholder === undefined)
    return served;
  const copy = structuredClone(served);
  scheme(copy)!.openIdConnectUrl = placeholder;
  return copy;
}
