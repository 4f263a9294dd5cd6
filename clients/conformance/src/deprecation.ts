// What openapi.yaml deprecates (an operation, or a query parameter), when, until when, and the headers its
// answers carry for it (RFC 9745 Deprecation, RFC 8594 Sunset, RFC 8288 Link rel="deprecation"): one reading
// for the service that sends them, the conformance run that checks them, the generator and the breaking gate.
import { followRef } from './openapi-ref.js';

type JsonObject = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Where the Link points when the contract names no page of its own: Swagger UI shows the operation struck through. */
export const DEFAULT_DEPRECATION_LINK = '/docs';
/** The response headers a deprecated operation's (or parameter's) answers must declare in openapi.yaml. */
export const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link'] as const;

const asObject = (value: unknown): JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : {};
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

export interface Deprecation {
  /** `x-deprecated-at`, YYYY-MM-DD. */
  deprecatedAt: string;
  /** `x-sunset`, YYYY-MM-DD: after this day the operation or parameter may be removed. */
  sunset: string;
  /** `x-deprecation-link`: the page that says what to use instead. */
  link: string;
}

/** The header values an answer carries, as the service sends them and the conformance run expects them. */
export interface DeprecationHeaders {
  /** RFC 9745: a Structured Field Date, `@` and the Unix seconds of the earliest `x-deprecated-at`. */
  deprecation: string;
  /** RFC 8594: the HTTP-date of the earliest `x-sunset`. */
  sunset: string;
  /** RFC 8288: the link values, each `<URL>; rel="deprecation"`, appended to any Link the answer already has. */
  link: string;
}

export interface OperationDeprecations {
  /** `GET /plants`, as openapi.yaml writes it. */
  operation: string;
  operationId: string | undefined;
  /** JSON pointer of the operation in openapi.yaml. */
  pointer: string;
  /** The whole operation is deprecated: every answer carries the headers. */
  deprecated: Deprecation | undefined;
  /** Deprecated query parameters, by name: an answer carries the headers when the request used one. */
  parameters: Map<string, Deprecation>;
}

/** A deprecation written wrong in openapi.yaml; the message names where and what to write. */
export class DeprecationError extends Error {}

function utcDay(text: unknown, where: string, keyword: string): number {
  const match = typeof text === 'string' ? DATE.exec(text) : null;
  const day = match === null ? NaN : Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  // Date.UTC rolls 2027-02-30 over to March: a day that does not exist is refused, not moved.
  if (Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== text)
    throw new DeprecationError(`openapi.yaml: ${where} is deprecated, so it needs ${keyword}: YYYY-MM-DD (a day that exists)`);
  return day;
}

/** The deprecation of an operation or parameter node, undefined when it is not deprecated. */
export function deprecationOf(node: JsonObject, where: string): Deprecation | undefined {
  if (node.deprecated !== true) {
    if (node['x-sunset'] !== undefined || node['x-deprecated-at'] !== undefined)
      throw new DeprecationError(`openapi.yaml: ${where} has x-sunset or x-deprecated-at but not deprecated: true`);
    return undefined;
  }
  const deprecatedAt = utcDay(node['x-deprecated-at'], where, 'x-deprecated-at');
  const sunset = utcDay(node['x-sunset'], where, 'x-sunset');
  if (sunset <= deprecatedAt) throw new DeprecationError(`openapi.yaml: ${where}: x-sunset must come after x-deprecated-at`);
  const link = node['x-deprecation-link'] ?? DEFAULT_DEPRECATION_LINK;
  if (typeof link !== 'string' || /[<>\s]/.test(link))
    throw new DeprecationError(`openapi.yaml: ${where}: x-deprecation-link must be a URL (without spaces or angle brackets)`);
  return { deprecatedAt: String(node['x-deprecated-at']), sunset: String(node['x-sunset']), link };
}

const day = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** Whether the sunset day has begun by `now` (the day is counted in UTC). */
export const sunsetPassed = (deprecation: Deprecation, now: Date): boolean => day(deprecation.sunset) <= now.getTime();

/** Every operation that is deprecated or has a deprecated query parameter; throws DeprecationError on one written wrong. */
export function deprecations(document: JsonObject): OperationDeprecations[] {
  const found: OperationDeprecations[] = [];
  for (const [path, itemValue] of Object.entries(asObject(document.paths))) {
    const itemPointer = `/paths/${escape(path)}`;
    const item = asObject(followRef(document, itemValue, itemPointer).node);
    for (const method of METHODS) {
      if (item[method] === undefined) continue;
      const operation = asObject(item[method]);
      const name = `${method.toUpperCase()} ${path}`;
      const parameters = new Map<string, Deprecation>();
      const list = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);
      const entries = [...list(item.parameters), ...list(operation.parameters)];
      for (const entry of entries) {
        const parameter = asObject(followRef(document, entry).node);
        const where = `${name} ${String(parameter.in)} parameter ${String(parameter.name)}`;
        const deprecation = deprecationOf(parameter, where);
        if (deprecation === undefined) continue;
        if (parameter.in !== 'query')
          throw new DeprecationError(`openapi.yaml: ${where}: only query parameters can be deprecated (a client can leave them out)`);
        parameters.set(String(parameter.name), deprecation);
      }
      const deprecated = deprecationOf(operation, name);
      if (deprecated === undefined && parameters.size === 0) continue;
      const operationId = typeof operation.operationId === 'string' ? operation.operationId : undefined;
      found.push({ operation: name, operationId, pointer: `${itemPointer}/${method}`, deprecated, parameters });
    }
  }
  return found;
}

/**
 * Where openapi.yaml deprecates without declaring what the answers then carry: every response of a deprecated
 * operation, or of one with a deprecated parameter, declares Deprecation, Sunset and Link. Empty when all do.
 */
export function undeclaredDeprecationHeaders(document: JsonObject): string[] {
  const problems: string[] = [];
  for (const { operation, pointer } of deprecations(document)) {
    const responses = asObject(asObject(followRef(document, { $ref: `#${pointer}` }).node).responses);
    for (const [status, response] of Object.entries(responses)) {
      const declared = Object.keys(asObject(asObject(followRef(document, response).node).headers)).map((name) => name.toLowerCase());
      const missing = DEPRECATION_HEADERS.filter((name) => !declared.includes(name.toLowerCase()));
      if (missing.length > 0)
        problems.push(`${operation} is deprecated, but its response ${status} does not declare ${missing.join(', ')}`);
    }
  }
  return problems;
}

/** Whether a request URL sends the query parameter `name` (given, even empty), read from the URL as the client wrote it. */
export function sendsQueryParameter(url: string, name: string): boolean {
  const query = url.indexOf('?');
  return query !== -1 && new URLSearchParams(url.slice(query + 1)).has(name);
}

/** The deprecations an answer to `url` must announce: the operation's, then those of the query parameters it used. */
export function deprecationsFor(deprecated: OperationDeprecations, url: string): Deprecation[] {
  const used = [...deprecated.parameters].filter(([name]) => sendsQueryParameter(url, name)).map(([, deprecation]) => deprecation);
  return deprecated.deprecated === undefined ? used : [deprecated.deprecated, ...used];
}

/** The headers of an answer that announces these deprecations (at least one): the earliest dates, every distinct link. */
export function deprecationHeaders(announced: Deprecation[]): DeprecationHeaders {
  const earliest = (dates: string[]) => Math.min(...dates.map(day));
  return {
    deprecation: `@${earliest(announced.map((deprecation) => deprecation.deprecatedAt)) / 1000}`,
    sunset: new Date(earliest(announced.map((deprecation) => deprecation.sunset))).toUTCString(),
    link: [...new Set(announced.map((deprecation) => deprecation.link))].map((link) => `<${link}>; rel="deprecation"`).join(', '),
  };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * How an answer to `url` fails to announce what openapi.yaml deprecates there; empty when it does (or nothing
 * is deprecated there). `headers` are the answer's, by lower-case name.
 */
export function announcementProblems(
  deprecated: OperationDeprecations,
  url: string,
  headers: Record<string, string | string[] | undefined>,
): string[] {
  const announced = deprecationsFor(deprecated, url);
  if (announced.length === 0) return [];
  const expected = deprecationHeaders(announced);
  const why = deprecated.deprecated === undefined ? `a deprecated parameter was sent` : 'the operation is deprecated';
  const problems: string[] = [];
  for (const [name, value] of [
    ['Deprecation', expected.deprecation],
    ['Sunset', expected.sunset],
  ] as const) {
    const got = headers[name.toLowerCase()];
    if (String(got) !== value) problems.push(`${why}, so ${name} must be ${value}, not ${got === undefined ? '(none)' : String(got)}`);
  }
  const link = String(headers.link ?? '');
  for (const target of new Set(announced.map((deprecation) => deprecation.link))) {
    // One link-value of the field, whatever else it holds (rel="next"): <target>, then parameters with rel deprecation.
    if (!new RegExp(`<${escapeRegExp(target)}>[^,<]*;\\s*rel="?[^",<]*\\bdeprecation\\b`, 'i').test(link))
      problems.push(`${why}, so Link must hold <${target}>; rel="deprecation", not ${link === '' ? '(none)' : link}`);
  }
  return problems;
}
