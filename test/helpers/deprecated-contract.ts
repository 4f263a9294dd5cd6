// A copy of openapi.yaml that deprecates what the tests retire: GET /plants's `limit` parameter and the whole
// of GET /healthz, each with its dates, and the headers their answers then carry declared (as the generator requires).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { followRef } from '../../clients/conformance/src/openapi-ref.js';
import { projectRoot } from './paths.js';

/** What the copy says, and the header values that follows from it (computed by hand, not by the code under test). */
export const LIMIT = {
  deprecatedAt: '2026-11-01',
  sunset: '2027-06-30',
  deprecation: '@1793491200',
  sunsetHeader: 'Wed, 30 Jun 2027 00:00:00 GMT',
};
export const HEALTH = {
  deprecatedAt: '2026-10-01',
  sunset: '2027-03-31',
  link: 'https://example.com/retired/healthz',
  deprecation: '@1790812800',
  sunsetHeader: 'Wed, 31 Mar 2027 00:00:00 GMT',
};

type Json = any;

/** Declares Deprecation, Sunset and Link on every response of an operation (a shared component response gets them too). */
export function declareDeprecationHeaders(document: Json, operation: Json): void {
  document.components.headers.Deprecation ??= {
    description: 'RFC 9745: when what the request used was deprecated, `@` and Unix seconds.',
    schema: { type: 'string', pattern: '^@-?[0-9]+$' },
  };
  document.components.headers.Sunset ??= { description: 'RFC 8594: after this HTTP-date it may be gone.', schema: { type: 'string' } };
  for (const response of Object.values(operation.responses)) {
    const node = followRef(document, response).node as Json;
    node.headers ??= {};
    for (const name of ['Deprecation', 'Sunset', 'Link']) node.headers[name] ??= { $ref: `#/components/headers/${name}` };
  }
}

/** The project's openapi.yaml with the deprecations; `declare: false` leaves their headers undeclared. */
export function deprecatedDocument({ declare = true } = {}): Json {
  const document = parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8'));
  const list = document.paths['/plants'].get;
  const limit = list.parameters.find((parameter: Json) => parameter.name === 'limit');
  Object.assign(limit, { deprecated: true, 'x-deprecated-at': LIMIT.deprecatedAt, 'x-sunset': LIMIT.sunset });
  const health = document.paths['/healthz'].get;
  Object.assign(health, {
    deprecated: true,
    'x-deprecated-at': HEALTH.deprecatedAt,
    'x-sunset': HEALTH.sunset,
    'x-deprecation-link': HEALTH.link,
  });
  if (declare) {
    declareDeprecationHeaders(document, list);
    declareDeprecationHeaders(document, health);
  }
  return document;
}

export const deprecatedContract = (options?: { declare?: boolean }): string => stringify(deprecatedDocument(options));
