// Checks one HTTP response against openapi.yaml itself with Ajv's JSON Schema 2020-12 dialect (OpenAPI
// 3.1's): the status is declared, required headers are there, no x-... or RateLimit header is sent undeclared,
// the body matches, an Error's `error` is the status.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonObject } from './contract-file.js';
import { answerKey } from './declared-answers.js';
import { announcementProblems, deprecations, type OperationDeprecations } from './deprecation.js';
import { followRef } from './openapi-ref.js';

export interface SeenResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface OperationMatch {
  /** `POST /plants/{id}`, as openapi.yaml writes it. */
  name: string;
  operation: JsonObject;
  /** JSON pointer of the operation in openapi.yaml. */
  pointer: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Response headers that must be declared to be sent: `x-...` and `ratelimit...`, in any case. */
const UNDECLARED_WATCH = /^(x-|ratelimit)/i;
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');
const asObject = (value: unknown): JsonObject => (typeof value === 'object' && value !== null ? (value as JsonObject) : {});

export class ResponseValidator {
  readonly #ajv: Ajv2020;
  readonly #document: JsonObject;
  readonly #validators = new Map<string, ValidateFunction>();
  readonly #paths: { template: string; pattern: RegExp }[];
  /** What openapi.yaml deprecates, by operation (`GET /plants`): its answers must announce it. */
  readonly #deprecations: Map<string, OperationDeprecations>;

  constructor(document: JsonObject) {
    this.#document = document;
    // Strict mode stays on for every schema; the OpenAPI document's own fields and OpenAPI's schema
    // keywords (3.1 base vocabulary) are declared so the document can be the root the $refs point into.
    this.#ajv = new Ajv2020({
      strict: true,
      allErrors: true,
      formats: {
        int32: { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31 },
        int64: { type: 'number', validate: Number.isInteger },
      },
    });
    this.#ajv.addVocabulary([
      'openapi',
      'info',
      'jsonSchemaDialect',
      'servers',
      'paths',
      'webhooks',
      'components',
      'security',
      'tags',
      'externalDocs',
      'example',
      'discriminator',
      'xml',
    ]);
    this.#ajv.addSchema(document, 'openapi.yaml');
    this.#deprecations = new Map(deprecations(document).map((deprecated) => [deprecated.operation, deprecated]));
    this.#paths = Object.keys(asObject(document.paths))
      // Literal paths before templated ones, so /plants/export would win over /plants/{id}.
      .sort((a, b) => a.split('{').length - b.split('{').length)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      }));
  }

  /** The operation a request goes to, if openapi.yaml declares it. */
  find(method: string, url: string): OperationMatch | undefined {
    const path = url.split('?')[0]!;
    const lower = method.toLowerCase();
    if (!METHODS.includes(lower)) return undefined;
    for (const { template, pattern } of this.#paths) {
      if (!pattern.test(path)) continue;
      const operation = asObject(asObject(asObject(this.#document.paths)[template])[lower]);
      if (Object.keys(operation).length === 0) continue;
      return { name: `${method.toUpperCase()} ${template}`, operation, pointer: `/paths/${escape(template)}/${lower}` };
    }
    return undefined;
  }

  #resolve(value: unknown, pointer: string): { node: JsonObject; pointer: string } {
    const followed = followRef(this.#document, value, pointer);
    return { node: asObject(followed.node), pointer: followed.pointer };
  }

  #validator(pointer: string): ValidateFunction {
    let validate = this.#validators.get(pointer);
    if (validate === undefined) {
      validate = this.#ajv.compile({ $ref: `openapi.yaml#${pointer.split('/').map(encodeURIComponent).join('/')}` });
      this.#validators.set(pointer, validate);
    }
    return validate;
  }

  /** Which declared answer this response is (`GET /plants 200 application/json`); undefined when openapi.yaml declares no such answer. */
  answerKey(method: string, url: string, response: SeenResponse): string | undefined {
    const match = this.find(method, url);
    const declared = match === undefined ? undefined : asObject(match.operation.responses)[String(response.status)];
    if (match === undefined || declared === undefined) return undefined;
    const types = Object.keys(asObject(this.#resolve(declared, match.pointer).node.content));
    if (types.length === 0) return answerKey(match.name, String(response.status));
    const contentType = String(response.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim()
      .toLowerCase();
    const type = types.find((candidate) => candidate.toLowerCase() === contentType);
    return type === undefined ? undefined : answerKey(match.name, String(response.status), type);
  }

  /** What is wrong with this response to `method url`; empty when it follows openapi.yaml (or the operation is not declared). */
  check(method: string, url: string, response: SeenResponse): string[] {
    const match = this.find(method, url);
    if (match === undefined) return [];
    const status = String(response.status);
    const responses = asObject(match.operation.responses);
    const declared = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
    if (declared === undefined)
      return [`${match.name} answered ${status}, which openapi.yaml does not declare (it declares ${Object.keys(responses).join(', ')})`];
    const { node: answer, pointer } = this.#resolve(declared, `${match.pointer}/responses/${status}`);
    const deprecated = this.#deprecations.get(match.name);
    const problems =
      deprecated === undefined
        ? []
        : announcementProblems(deprecated, url, response.headers).map((problem) => `${match.name} ${status}: ${problem}`);
    // Headers of the kind that carry an API's own meaning (x-..., and the rate-limit fields, RateLimit and
    // the older drafts' RateLimit-*) must be declared for the answer, so a client learns of them from the contract.
    const declaredNames = new Set(Object.keys(asObject(answer.headers)).map((name) => name.toLowerCase()));
    for (const name of Object.keys(response.headers)) {
      if (UNDECLARED_WATCH.test(name) && !declaredNames.has(name.toLowerCase()))
        problems.push(`${match.name} ${status} sends the header ${name}, which openapi.yaml does not declare for this answer`);
    }
    for (const [name, header] of Object.entries(asObject(answer.headers))) {
      const { node, pointer: headerPointer } = this.#resolve(header, `${pointer}/headers/${escape(name)}`);
      const value = response.headers[name.toLowerCase()];
      if (value === undefined) {
        if (node.required === true) problems.push(`${match.name} ${status} lacks the required header ${name}`);
        continue;
      }
      if (node.schema === undefined) continue;
      const validate = this.#validator(`${headerPointer}/schema`);
      const schema = this.#resolve(node.schema, `${headerPointer}/schema`).node;
      // Header values are text; a number-typed header is checked as the number it spells.
      const text = String(value);
      const data = schema.type === 'integer' || schema.type === 'number' ? (/^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text) : text;
      if (!validate(data))
        problems.push(`${match.name} ${status} header ${name}: ${this.#ajv.errorsText(validate.errors, { dataVar: name })}`);
    }
    const content = asObject(answer.content);
    const types = Object.keys(content);
    const contentType = String(response.headers['content-type'] ?? '');
    if (types.length === 0) {
      if (response.body !== '') problems.push(`${match.name} ${status} must have no body, but has ${response.body.length} bytes`);
      return problems;
    }
    const type = types.find((candidate) => contentType.split(';')[0]!.trim().toLowerCase() === candidate.toLowerCase());
    if (type === undefined) return [...problems, `${match.name} ${status} has content-type "${contentType}", not ${types.join(' or ')}`];
    let body: unknown = response.body;
    if (/json/.test(type)) {
      try {
        body = JSON.parse(response.body);
      } catch {
        return [...problems, `${match.name} ${status} body is not JSON: ${response.body.slice(0, 80)}`];
      }
    }
    const media = asObject(content[type]);
    if (media.schema !== undefined) {
      const validate = this.#validator(`${pointer}/content/${escape(type)}/schema`);
      if (!validate(body))
        problems.push(
          `${match.name} ${status} body does not match openapi.yaml: ${this.#ajv.errorsText(validate.errors, { dataVar: 'body' })}`,
        );
    }
    if (response.status >= 400 && asObject(body).error !== response.status)
      problems.push(`${match.name} ${status}: the Error's "error" is ${JSON.stringify(asObject(body).error)}, not the status ${status}`);
    return problems;
  }
}
