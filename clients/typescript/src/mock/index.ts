// `@plant-store/client/mock`: MSW 2 request handlers that answer as the Plant Store does, in memory, validating requests with the schemas generated from openapi.yaml.
import { http, HttpResponse, type HttpHandler } from 'msw';
import type { components } from '@plant-store/client/types';
import { stringifyExact } from '../exact-json.js';
import { parseExactJson, type ExactJson } from '../parse-exact-json.js';
import { LISTING_MEDIA_TYPE } from '../plant-listings.js';
import { openApiDocument, openApiYaml } from '../generated/openapi.js';
import { wantsListing } from './accept.js';
import { decodeCursor, encodeCursor, MockPlants } from './mock-plants.js';
import { describe, requestValidators } from './request-validation.js';
import type { OperationId } from '../generated/schemas.js';
import { unimplementedHandlers } from './unimplemented.js';

type Plant = components['schemas']['Plant'];

export interface PlantStoreHandlersOptions {
  /** Where the app calls the service: `http://localhost:3000`, or in a browser a path such as `/api`. */
  baseUrl: string;
  /** The tokens the mock accepts: a list (each token a user of its own) or `{ token: user }` (tokens of one user share its plants). */
  tokens: readonly string[] | Readonly<Record<string, string>>;
  /**
   * The OpenAPI document to answer by; by default the one this package was built from. An operation it declares
   * that the mock does not implement answers 501 with an Error naming it.
   */
  contract?: Record<string, unknown>;
}

/** The operations the handlers below answer; any other operation of the contract answers 501. */
const IMPLEMENTED: ReadonlySet<OperationId> = new Set<OperationId>([
  'listPlants',
  'addPlant',
  'deletePlant',
  'getHealth',
  'getReadiness',
  'getOpenApiJson',
  'getOpenApiYaml',
]);

/** The service's body limit: larger bodies answer 413. */
const BODY_LIMIT = 16 * 1024;
const CHALLENGE = 'Bearer realm="plant-store"';
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** Every answer the mock gives: JSON (or no body), with the request's X-Request-Id, or a new one, as the service does. */
function answer(request: Request, status: number, body?: string, headers: Record<string, string> = {}): HttpResponse<string> {
  const sent = request.headers.get('x-request-id');
  const id = sent !== null && REQUEST_ID.test(sent) ? sent : `mock-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  const type: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' };
  return new HttpResponse(body ?? null, { status, headers: { ...type, 'x-request-id': id, ...headers } });
}

/** An Error `{error, message}` whose `error` is the status, as every non-2xx answer of the service. */
const refuse = (request: Request, status: number, message: string, headers: Record<string, string> = {}) =>
  answer(request, status, JSON.stringify({ error: status, message }), headers);

/** A request the service refuses: its status, the Error's message and any header the refusal carries. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The request's body as the service reads it: JSON only, UTF-8, at most 16 KiB, integers exact (bigint). */
async function readBody(request: Request, required: boolean): Promise<unknown> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  const type = request.headers.get('content-type');
  // No body at all: nothing to parse (a POST without one then fails validation, "body must be object", as on the service).
  if (bytes.length === 0 && (!required || type === null)) return undefined;
  // The type first, as the service, which refuses another type unread.
  const media = type?.split(';', 1)[0]!.trim().toLowerCase();
  if (media !== 'application/json')
    throw new Refusal(
      415,
      type === null ? 'Send the body as application/json, and say so in Content-Type.' : `Send the body as application/json, not ${type}.`,
    );
  if (bytes.length > BODY_LIMIT) throw new Refusal(413, `The request body is larger than ${BODY_LIMIT} bytes.`);
  const encoding = request.headers.get('content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity')
    throw new Refusal(415, `The body has Content-Encoding: ${encoding}; send it uncompressed.`, { 'accept-encoding': 'identity' });
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type!)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    throw new Refusal(415, `Send the body in UTF-8 (charset=utf-8), not ${charset}.`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Refusal(400, 'The body is not valid UTF-8.');
  }
  if (text.trim() === '') throw new Refusal(400, 'The body is empty; send a JSON object.');
  try {
    return apartFromIntegers(parseExactJson(text, { refuseDifferentDuplicateKeys: true, negativeZeroIsNumber: true }));
  } catch (error) {
    throw new Refusal(400, `The body is not valid JSON: ${(error as Error).message}.`);
  }
}

/** A number not written as an integer (1.0, 1e3, -0), kept apart from integers as the server's parser keeps it: no schema takes it for one. */
class NotAnInteger {
  constructor(readonly value: number) {}
}

/** The exact parse, with every number that is not an integer (the parser gives integers as bigint) set apart. */
function apartFromIntegers(value: ExactJson): unknown {
  if (typeof value === 'number') return new NotAnInteger(value);
  if (Array.isArray(value)) return value.map(apartFromIntegers);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, apartFromIntegers(item)]));
  }
  return value;
}

/**
 * The handlers, in the order MSW tries them: the plant operations, the open operations, a 501 for an
 * operation of the contract the mock does not implement, then a 405 for a method a path does not have and
 * a 404 for any other path under `baseUrl`.
 */
/** The service's paths, exactly: MSW matches them regardless of case and of a trailing slash, the service does not. */
const LIST = /\/plants$/;
const ONE = /\/plants\/[^/]+$/;
const exactly = (request: Request, path: RegExp) => path.test(new URL(request.url).pathname);

export function plantStoreHandlers(options: PlantStoreHandlersOptions): HttpHandler[] {
  const base = options.baseUrl.replace(/\/+$/, '');
  // A Map, not a plain object: "Bearer __proto__" must not find a user.
  const users = new Map<string, string>(
    Array.isArray(options.tokens)
      ? (options.tokens as readonly string[]).map((token, index) => [token, `user${index + 1}`])
      : Object.entries(options.tokens),
  );
  const plants = new MockPlants();

  /** The caller's user, or the 401 the service answers (RFC 6750: error="invalid_token" when a token was sent). */
  const userOf = (request: Request): string => {
    const header = request.headers.get('authorization') ?? '';
    // Anything after "Bearer" and a space or tab is a token sent, well formed or not, as the service counts it.
    if (!/^bearer[ \t]+\S/i.test(header))
      throw new Refusal(401, 'Send a bearer token: Authorization: Bearer <token>.', { 'www-authenticate': CHALLENGE });
    const user = users.get(/^bearer +(\S+) *$/i.exec(header)?.[1] ?? '');
    if (user === undefined)
      throw new Refusal(401, 'The bearer token is not valid; it may have expired or been revoked. Ask for a new one.', {
        'www-authenticate': `${CHALLENGE}, error="invalid_token"`,
      });
    return user;
  };

  /** Runs an operation for the caller's user, on its exact path only; a Refusal becomes its Error answer. */
  const operation =
    (path: RegExp, run: (request: Request, user: string, params: Record<string, unknown>) => Promise<HttpResponse<string>>) =>
    async ({ request, params }: { request: Request; params: Record<string, unknown> }) => {
      if (!exactly(request, path)) return undefined;
      try {
        return await run(request, userOf(request), params);
      } catch (error) {
        if (error instanceof Refusal) return refuse(request, error.status, error.message, error.headers);
        throw error;
      }
    };

  const open = (path: string, body: () => string, type: string, exact = new RegExp(`${path.replace('.', '\\.')}$`)) => [
    ...(['get', 'head'] as const).map((method) =>
      http[method](`${base}${path}`, ({ request }) => {
        if (!exactly(request, exact)) return undefined;
        const response = answer(request, 200, body());
        response.headers.set('content-type', type);
        return response;
      }),
    ),
    http.all(`${base}${path}`, ({ request }) =>
      exactly(request, exact)
        ? refuse(request, 405, `${request.method} is not allowed on ${path}; use GET or HEAD.`, { allow: 'GET, HEAD' })
        : undefined,
    ),
  ];

  return [
    http.get(
      `${base}/plants`,
      operation(LIST, async (request, user) => {
        const url = new URL(request.url);
        const query: Record<string, string | string[]> = {};
        for (const [name, value] of url.searchParams) {
          const seen = query[name];
          query[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
        }
        const validate = requestValidators().listQuery;
        if (!validate(query)) throw new Refusal(400, describe('querystring', validate));
        const { limit, cursor } = query as unknown as { limit: number; cursor?: string };
        const after = cursor === undefined ? undefined : decodeCursor(cursor);
        if (cursor !== undefined && after === undefined)
          throw new Refusal(400, 'querystring.cursor is not a cursor this service gave out; start again from the first page.');
        const page = plants.page(user, after, limit);
        const headers: Record<string, string> = { vary: 'Accept' };
        const last = page.items.at(-1);
        if (page.more && last !== undefined) headers.link = `</plants?limit=${limit}&cursor=${encodeCursor(last[0])}>; rel="next"`;
        if (!wantsListing(request.headers.get('accept'))) {
          return answer(request, 200, JSON.stringify(page.items.map(([, plant]) => plant)), headers);
        }
        const response = answer(request, 200, stringifyExact(page.items.map(([id, plant]) => ({ id, ...plant }))), headers);
        response.headers.set('content-type', `${LISTING_MEDIA_TYPE}; charset=utf-8`);
        return response;
      }),
    ),
    http.post(
      `${base}/plants`,
      operation(LIST, async (request, user) => {
        const body = await readBody(request, true);
        const validate = requestValidators().newPlant;
        if (!validate(body)) throw new Refusal(400, describe('body', validate));
        const { id, name, tag } = body as { id: bigint; name: string; tag?: string };
        const plant: Plant = tag === undefined ? { name } : { name, tag };
        if (plants.add(user, id, plant) === 'conflict')
          throw new Refusal(409, `A plant with id ${id} already exists with a different name or tag; delete it first or use another id.`);
        return answer(request, 200, JSON.stringify(plant), { location: `/plants/${id}` });
      }),
    ),
    http.delete(
      `${base}/plants/:id`,
      operation(ONE, async (request, user, params) => {
        await readBody(request, false);
        const path = { id: params.id };
        const validate = requestValidators().deleteParams;
        if (!validate(path)) throw new Refusal(400, describe('params', validate));
        const id = path.id as bigint;
        if (!plants.delete(user, id)) throw new Refusal(404, `You have no plant with id ${id}.`);
        return answer(request, 204);
      }),
    ),
    ...open('/healthz', () => '{"status":"ok"}', 'application/json; charset=utf-8'),
    ...open('/readyz', () => '{"status":"ok"}', 'application/json; charset=utf-8'),
    ...open('/openapi.json', () => JSON.stringify(openApiDocument), 'application/json; charset=utf-8'),
    ...open('/openapi.yaml', () => openApiYaml, 'application/yaml; charset=utf-8'),
    ...unimplementedHandlers(base, options.contract ?? openApiDocument, IMPLEMENTED, refuse),
    http.all(`${base}/plants`, ({ request }) =>
      exactly(request, LIST)
        ? refuse(request, 405, `${request.method} is not allowed on /plants; use GET or POST.`, { allow: 'GET, POST' })
        : undefined,
    ),
    http.all(`${base}/plants/:id`, ({ request }) =>
      exactly(request, ONE)
        ? refuse(request, 405, `${request.method} is not allowed on /plants/{id}; use DELETE.`, { allow: 'DELETE' })
        : undefined,
    ),
    http.all(`${base}/*`, ({ request }) =>
      refuse(request, 404, `There is no ${new URL(request.url).pathname} here; see /openapi.json for what there is.`),
    ),
  ];
}
