// 401 on every plant operation: without a token, and with a well-formed token the service never issued,
// each with the RFC 6750 challenge. Six failures in all: deployments limit failed attempts per address.
import { randomBytes } from 'node:crypto';
import { seen, type Run } from '../run.js';

const CHALLENGE = /^Bearer realm="plant-store"$/;
const INVALID = /^Bearer realm="plant-store", error="invalid_token"$/;

export async function authChecks(run: Run): Promise<void> {
  const unknownToken = `pst_${randomBytes(32).toString('base64url')}`;
  const body = `{"id":${run.id(900)},"name":${JSON.stringify(run.name('never stored'))}}`;
  const operations = [
    { operation: 'GET /plants', method: 'GET', path: '/plants' },
    { operation: 'POST /plants', method: 'POST', path: '/plants', body },
    { operation: 'DELETE /plants/{id}', method: 'DELETE', path: `/plants/${run.id(900)}` },
  ];
  for (const { operation, method, path, body } of operations) {
    for (const [title, token, challenge, expected] of [
      ['refuses a request without a token', undefined, CHALLENGE, 'Bearer realm="plant-store"'],
      ['refuses a token it never issued', unknownToken, INVALID, 'Bearer realm="plant-store", error="invalid_token"'],
    ] as const) {
      await run.check(operation, title, `401 with WWW-Authenticate: ${expected}`, async () => {
        const exchange = await run.http.send(method, path, { token, body });
        return {
          ok: exchange.status === 401 && challenge.test(exchange.headers['www-authenticate'] ?? ''),
          actual: seen(exchange, ['WWW-Authenticate']),
        };
      });
    }
  }
}
