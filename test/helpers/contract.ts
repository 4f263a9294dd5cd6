// The contract sentinel: every response a test receives is checked against openapi.yaml by status and media type
// (the generated schemas, and the document itself with Ajv 2020), and each (operation, status, media type) seen
// is recorded so the run can prove every declared one was exercised.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { openApiDocument } from '../../generated/openapi.js';
import { componentSchemas, operations, type OperationId } from '../../generated/schemas.js';
import { resolveRef } from '../../clients/conformance/src/openapi-ref.js';
import { loadContract } from '../../clients/conformance/src/contract-file.js';
import { ResponseValidator } from '../../clients/conformance/src/response-validator.js';
import { projectRoot } from './paths.js';

export const coverageDir = join(projectRoot, '.tap', 'contract');

type Json = Record<string, unknown>;

const ajv = new Ajv({ strict: true, allErrors: true });
ajv.addKeyword('exactInteger'); // request-only keyword; responses never carry it
for (const schema of componentSchemas) ajv.addSchema(schema);

const errorValidator = ajv.getSchema('Error')!;
const validators = new Map<string, ValidateFunction>();

/** A response's route schema: one schema, or one per media type (Fastify's `{content: {type: {schema}}}` form). */
type RouteResponse = { content?: Record<string, { schema: object }> } & object;

/** The generated route schema of (operation, status) for the media type the response has, the one Fastify serialized with. */
function validatorFor(id: OperationId, status: string, mediaType: string): ValidateFunction | undefined {
  const key = `${id} ${status} ${mediaType}`;
  if (!validators.has(key)) {
    const response = (operations[id].schema as { response?: Record<string, RouteResponse> }).response?.[status];
    const schema = response?.content === undefined ? response : response.content[mediaType]?.schema;
    if (schema !== undefined) validators.set(key, ajv.compile(schema));
  }
  return validators.get(key);
}

/** application/json and the +json types: bodies the sentinel parses and validates. */
const isJson = (mediaType: string) => /[/+]json$/.test(mediaType);

/** The media type of a Content-Type value: lower case, without parameters. */
const mediaTypeOf = (contentType: string) => contentType.split(';', 1)[0]!.trim().toLowerCase();

const resolve = (node: unknown) => resolveRef(openApiDocument, node) as Json;

/** A Fastify route URL (`/plants/:id`) as a pattern for concrete paths. */
const routePattern = (url: string) =>
  new RegExp(
    `^${url
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}$`,
  );

const patterns = Object.entries(operations).map(([id, operation]) => ({
  id: id as OperationId,
  method: operation.method,
  pattern: routePattern(operation.url),
}));

export function findOperation(method: string, url: string): OperationId | undefined {
  const path = url.split('?')[0]!;
  return patterns.find((entry) => entry.method === method.toUpperCase() && entry.pattern.test(path))?.id;
}

export interface SeenResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

// openapi.yaml itself, as the conformance command checks it: a fault of the generator cannot hide
// behind the generated schemas it made.
const direct = new ResponseValidator(loadContract(join(projectRoot, 'openapi.yaml')));

/** Problems of one response against the contract; records its (operation, status, media type). */
export function checkResponse(method: string, url: string, response: SeenResponse): string[] {
  const problems = checkGenerated(method, url, response);
  if (method.toUpperCase() === 'HEAD') return problems;
  return [...problems, ...direct.check(method, url, response).map((problem) => `openapi.yaml (Ajv 2020): ${problem}`)];
}

function checkGenerated(method: string, url: string, response: SeenResponse): string[] {
  const problems: string[] = [];
  const id = findOperation(method, url);
  const contentType = String(response.headers['content-type'] ?? '');
  const parse = () => {
    try {
      return JSON.parse(response.body) as unknown;
    } catch {
      problems.push(`body is not JSON: ${response.body.slice(0, 80)}`);
      return undefined;
    }
  };
  if (method.toUpperCase() === 'HEAD') return problems; // no body to check
  if (id === undefined) {
    // Outside the operations (unknown paths, 405, docs assets): errors must still be the Error shape.
    if (response.status >= 400) {
      if (!contentType.startsWith('application/json')) problems.push(`error content-type is ${contentType}`);
      const body = parse();
      if (!errorValidator(body)) problems.push(`error body is not an Error: ${ajv.errorsText(errorValidator.errors)}`);
      else if ((body as { error: number }).error !== response.status) problems.push('Error.error differs from the status');
    }
    return problems;
  }
  const status = String(response.status);
  const operation = resolve(resolve((openApiDocument.paths as Json)[operations[id].path])[method.toLowerCase()]);
  const declared = (operation.responses as Json)[status];
  if (declared === undefined) {
    record(id, status);
    return [`${id} answered ${status}, which openapi.yaml does not declare`];
  }
  const responseObject = resolve(declared);
  for (const [name, header] of Object.entries((responseObject.headers ?? {}) as Json)) {
    if (resolve(header).required === true && response.headers[name.toLowerCase()] === undefined)
      problems.push(`${id} ${status} lacks header ${name}`);
  }
  const content = responseObject.content as Json | undefined;
  if (content === undefined) {
    record(id, status);
    if (response.body !== '') problems.push(`${id} ${status} should have no body`);
    return problems;
  }
  const mediaType = mediaTypeOf(contentType);
  if (!(mediaType in content)) {
    record(id, status);
    problems.push(`${id} ${status} content-type ${contentType} is not one of ${Object.keys(content).join(', ')}`);
    return problems;
  }
  record(id, status, mediaType);
  if (isJson(mediaType)) {
    const body = parse();
    const validate = validatorFor(id, status, mediaType);
    if (validate && !validate(body)) problems.push(`${id} ${status} ${mediaType} body does not match: ${ajv.errorsText(validate.errors)}`);
    if (response.status >= 400 && (body as { error?: number } | null)?.error !== response.status)
      problems.push(`${id} ${status}: Error.error differs from the status`);
  }
  return problems;
}

/** How coverage names a response: operation and status, and the media type when it has a body. */
const coverageKey = (id: string, status: string, mediaType?: string) =>
  mediaType === undefined ? `${id} ${status}` : `${id} ${status} ${mediaType}`;

let coverageFile: string | undefined;
function record(id: OperationId, status: string, mediaType?: string) {
  if (coverageFile === undefined) {
    mkdirSync(coverageDir, { recursive: true });
    coverageFile = join(coverageDir, `${process.pid}.jsonl`);
    appendFileSync(coverageFile, JSON.stringify({ testFile: relative(projectRoot, process.argv[1] ?? '') }) + '\n');
  }
  appendFileSync(coverageFile, JSON.stringify({ key: coverageKey(id, status, mediaType) }) + '\n');
}

/**
 * Every (operationId, status, media type) that openapi.yaml declares: a status with several media
 * types (GET /plants 200: application/json and the listing) counts once for each, so each must be answered.
 */
export function declaredPairs(): string[] {
  const pairs: string[] = [];
  for (const [id, operation] of Object.entries(operations)) {
    const responses = resolve(resolve((openApiDocument.paths as Json)[operation.path])[operation.method.toLowerCase()]).responses as Json;
    for (const [status, declared] of Object.entries(responses)) {
      const content = resolve(declared).content as Json | undefined;
      if (content === undefined) pairs.push(coverageKey(id, status));
      else for (const mediaType of Object.keys(content)) pairs.push(coverageKey(id, status, mediaType));
    }
  }
  return pairs;
}
