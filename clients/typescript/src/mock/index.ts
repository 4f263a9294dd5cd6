// `@plant-store/client/mock`: MSW 2 request handlers that answer as the Plant Store does, in memory, validating requests with the schemas generated from openapi.yaml.
import { http, HttpResponse, type HttpHandler } from 'msw';
import type { components } from '@plant-store/client/types';
import { stringifyExact } from '../exact-json.js';
import { parseExactJson, type ExactJson } from '../generated/parse-exact-json.js';
import { LISTING_MEDIA_TYPE } from '../plant-listings.js';
import { clip, fill, MESSAGES, methodNotAllowed, nothingAt } from '../generated/error-messages.js';
import { openApiDocument, openApiYaml } from '../generated/openapi.js';
import { wantsListing } from './accept.js';
import { decodeCursor, encodeCursor, MockPlants, type MockStorage } from './mock-plants.js';
import { describe, requestValidators } from './request-validation.js';
import type { OperationId } from '../generated/schemas.js';
import { unimplementedHandlers } from './unimplemented.js';

type Plant = components['schemas']['Plant'];

export type { MockStorage } from './mock-plants.js';

export interface PlantStoreHandlersOptions {
  /** Where the app calls the service: `http://localhost:3000`, or in a browser a path such as `/api`. */
  baseUrl: string;
  /** The tokens the mock accepts: a list (each token a user of its own) or `{ token: user }` (tokens of one user share its plants). */
  tokens: readonly string[] | Readonly<Record<string, string>>;
  /**
   * Keep the plants across page reloads. `true`: in the browser's localStorage, under
   * `plant-store-mock:<baseUrl>`; or a storage (sessionStorage, your own) and a key. Only plants are kept:
   * tokens come from `tokens` on every start, request ids are new per answer, and the mock has no rate limit.
   */
  persist?: boolean | { storage?: MockStorage; key?: string };
  /**
   * The OpenAPI document to answer by; by default the one this package was built from. An operation it declares
   * that the mock does not implement answers 501 with an Error naming it.
   */
  contract?: Record<string, unknown>;
}

/** The storage and key `persist` asks for, or undefined for plants in memory only. */
function storageOf(options: PlantStoreHandlersOptions): { storage: MockStorage; key: string } | undefined {
  if (!options.persist) return undefined;
  const chosen = options.persist === true ? {} : options.persist;
  const storage = chosen.storage ?? (globalThis as { localStorage?: MockStorage }).localStorage;
  if (storage === undefined)
    throw new TypeError('persist: true keeps plants in localStorage, and there is none here (not a browser); pass persist: { storage }.');
  return { storage, key: chosen.key ?? `plant-store-mock:${options.baseUrl}` };
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
    throw new Refusal(415, type === null ? MESSAGES.noContentType : fill(MESSAGES.notJsonContentType, clip(type)));
  if (bytes.length > BODY_LIMIT) throw new Refusal(413, fill(MESSAGES.bodyTooLarge, BODY_LIMIT));
  const encoding = request.headers.get('content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity')
    throw new Refusal(415, fill(MESSAGES.unsupportedContentEncoding, clip(encoding, 40)), { 'accept-encoding': 'identity' });
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(type!);
  const charset = match === null ? undefined : (match[1] ?? match[2] ?? '').toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    throw new Refusal(415, fill(MESSAGES.unsupportedCharset, clip(charset, 40)));
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Refusal(400, MESSAGES.invalidUtf8);
  }
  if (text.trim() === '') throw new Refusal(400, fill(MESSAGES.invalidJson, MESSAGES.emptyJsonReason));
  try {
    return apartFromIntegers(parseExactJson(text, { refuseDifferentDuplicateKeys: true, negativeZeroIsNumber: true }));
  } catch (error) {
    throw new Refusal(400, fill(MESSAGES.invalidJson, (error as Error).message));
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
  const kept = storageOf(options);
  const plants = new MockPlants(kept?.storage, kept?.key);
  // The path as the service sees it, without the base's own path (`/api` in a browser app): its messages name that path.
  const basePath = new URL(base, 'http://base.invalid').pathname.replace(/\/+$/, '');
  const servicePath = (request: Request) => new URL(request.url).pathname.slice(basePath.length) || '/';

  /** The caller's user, or the 401 the service answers (RFC 6750: error="invalid_token" when a token was sent). */
  const userOf = (request: Request): string => {
    const header = request.headers.get('authorization') ?? '';
    // Anything after "Bearer" and a space or tab is a token sent, well formed or not, as the service counts it.
    if (!/^bearer[ \t]+\S/i.test(header)) throw new Refusal(401, MESSAGES.missingToken, { 'www-authenticate': CHALLENGE });
    const user = users.get(/^bearer +(\S+) *$/i.exec(header)?.[1] ?? '');
    if (user === undefined) throw new Refusal(401, MESSAGES.invalidToken, { 'www-authenticate': `${CHALLENGE}, error="invalid_token"` });
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
        ? refuse(request, 405, methodNotAllowed(request.method, path, ['GET', 'HEAD']), { allow: 'GET, HEAD' })
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
        if (cursor !== undefined && after === undefined) throw new Refusal(400, MESSAGES.invalidCursor);
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
        if (plants.add(user, id, plant) === 'conflict') throw new Refusal(409, fill(MESSAGES.conflict, id));
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
        if (!plants.delete(user, id)) throw new Refusal(404, fill(MESSAGES.notFound, id));
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
        ? refuse(request, 405, methodNotAllowed(request.method, servicePath(request), ['GET', 'POST']), { allow: 'GET, POST' })
        : undefined,
    ),
    http.all(`${base}/plants/:id`, ({ request }) =>
      exactly(request, ONE)
        ? refuse(request, 405, methodNotAllowed(request.method, servicePath(request), ['DELETE']), { allow: 'DELETE' })
        : undefined,
    ),
    http.all(`${base}/*`, ({ request }) => refuse(request, 404, nothingAt(request.method, servicePath(request)))),
  ];
}
