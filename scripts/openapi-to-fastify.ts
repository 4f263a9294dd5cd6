// Turns the OpenAPI document into the JSON Schemas Fastify validates and serializes with.
// OpenAPI-only keywords are stripped here so Ajv can keep its strict mode on.
import { resolveRef } from '../clients/conformance/src/openapi-ref.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
/** How a schema is used: a JSON request body, a text value (query or path), or a response. */
type Part = 'json' | 'text' | 'response';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** Path item keys that are operations the generator does not turn into routes. */
const UNSUPPORTED_METHODS = ['head', 'options', 'trace'] as const;
const OPENAPI_ONLY = new Set(['example', 'examples', 'deprecated', 'xml', 'externalDocs', 'discriminator', 'readOnly', 'writeOnly']);
const SCHEMA_VALUED = new Set(['items', 'additionalProperties', 'not', 'contains', 'propertyNames']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const COMPONENT_SCHEMA = '#/components/schemas/';

/** A value of the document as it reads in a message. */
const show = (value: Json | undefined): string =>
  typeof value === 'string' ? value : value === undefined ? 'nothing' : JSON.stringify(value);

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The generator meets something it cannot turn into routes faithfully: it says what and where, and stops. */
export class UnsupportedConstruct extends Error {
  constructor(where: string, construct: string, advice: string) {
    super(`openapi.yaml: ${where}: ${construct} is not supported by scripts/generate.ts; ${advice}`);
  }
}

function object(value: Json | undefined, where: string): JsonObject {
  if (!isObject(value)) throw new Error(`openapi.yaml: ${where} must be an object`);
  return value;
}

/** Follows a local `$ref` to the object it names. */
function deref(document: JsonObject, value: Json | undefined, where: string): JsonObject {
  const node = object(value, where);
  return typeof node.$ref === 'string' ? object(resolveRef(document, node) as Json, node.$ref) : node;
}

/**
 * Request integers are checked by the `exactInteger` keyword (src/validation/exact-integer.ts)
 * instead of `type: integer`: int64 ids arrive as bigint, query and path values as text.
 */
function exactInteger(schema: JsonObject, format: Json | undefined, part: Part): JsonObject {
  const { type: _type, minimum, maximum, ...rest } = schema;
  const rule: JsonObject = { format: format === 'int64' ? 'int64' : 'int32', text: part === 'text' };
  if (minimum !== undefined) rule.minimum = minimum;
  if (maximum !== undefined) rule.maximum = maximum;
  return { ...rest, exactInteger: rule };
}

export function toJsonSchema(schema: Json, part: Part, document: JsonObject, where = 'a schema'): Json {
  if (!isObject(schema)) return schema;
  if (Array.isArray(schema.type) && schema.type.includes('integer')) {
    // exactInteger replaces `type: integer` whole; a list of types would lose its other members.
    throw new UnsupportedConstruct(
      where,
      `type: [${schema.type.map(show).join(', ')}]`,
      'write type: integer alone (with anyOf for the other types)',
    );
  }
  if (typeof schema.$ref === 'string') {
    if (!schema.$ref.startsWith(COMPONENT_SCHEMA)) throw new Error(`unsupported $ref ${schema.$ref}`);
    // Responses share the components added with addSchema; requests inline them,
    // because their integers are checked differently.
    if (part === 'response') return { $ref: `${schema.$ref.slice(COMPONENT_SCHEMA.length)}#` };
    return toJsonSchema(deref(document, schema, schema.$ref), part, document, schema.$ref);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (OPENAPI_ONLY.has(key) || key.startsWith('x-')) continue;
    if (key === 'format' && (value === 'int32' || value === 'int64')) continue;
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, toJsonSchema(sub, part, document, `${where}.properties.${name}`)]),
      );
    } else if (SCHEMA_VALUED.has(key)) {
      out[key] = toJsonSchema(value, part, document, `${where}.${key}`);
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub, index) => toJsonSchema(sub, part, document, `${where}.${key}[${index}]`));
    } else {
      out[key] = value;
    }
  }
  return schema.type === 'integer' && part !== 'response' ? exactInteger(out, schema.format, part) : out;
}

/** Component schemas, each with `$id` equal to its name, for `fastify.addSchema`. */
export function componentSchemas(document: JsonObject): JsonObject[] {
  const schemas = object(object(document.components, 'components').schemas, 'components.schemas');
  return Object.entries(schemas).map(([name, schema]) => ({
    $id: name,
    ...object(toJsonSchema(schema, 'response', document, `components.schemas.${name}`), name),
  }));
}

function parameterSchema(document: JsonObject, parameters: JsonObject[], location: string, where: string): JsonObject | undefined {
  const matching = parameters.filter((parameter) => parameter.in === location);
  if (matching.length === 0) return undefined;
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const parameter of matching) {
    const name = show(parameter.name);
    properties[name] = toJsonSchema(parameter.schema ?? {}, 'text', document, `${where} ${location} parameter ${name}`);
    if (parameter.required === true) required.push(name);
  }
  // Unknown query parameters are ignored (a token sent as ?access_token= must not matter).
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/** JSON media types: application/json and the structured-syntax +json types (RFC 6839). */
const JSON_MEDIA_TYPE = /[/+]json\b/i;
/** What Fastify can pick a response schema by: it lower-cases the reply's type/subtype, drops its parameters and compares exactly. */
const EXACT_MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/**
 * The route schema of one response: the plain form when its only JSON body is application/json,
 * Fastify's per-content-type form (`{content: {type: {schema}}}`) when it has others, and null
 * when it has no JSON body (204, YAML), which leaves nothing to serialize.
 */
function responseSchema(document: JsonObject, response: JsonObject, where: string): Json {
  const content = isObject(response.content) ? response.content : {};
  const jsonTypes = Object.keys(content).filter((type) => JSON_MEDIA_TYPE.test(type));
  const inexact = jsonTypes.filter((type) => !EXACT_MEDIA_TYPE.test(type));
  if (inexact.length > 0) {
    throw new UnsupportedConstruct(
      where,
      `the JSON media type ${inexact.join(', ')}`,
      "write each JSON media type in lower case without parameters or wildcards, the form Fastify matches a reply's Content-Type against",
    );
  }
  const schemas = jsonTypes.flatMap((type) => {
    const media = content[type];
    return isObject(media) && media.schema !== undefined
      ? [[type, toJsonSchema(media.schema, 'response', document, `${where} ${type}`)] as const]
      : [];
  });
  if (schemas.length === 0) return null;
  if (schemas.length === 1 && schemas[0]![0] === 'application/json') return schemas[0]![1];
  return { content: Object.fromEntries(schemas.map(([type, schema]) => [type, { schema }])) };
}

function responseSchemas(document: JsonObject, operation: JsonObject, where: string): JsonObject {
  const out: JsonObject = {};
  for (const [status, value] of Object.entries(object(operation.responses, `${where}.responses`))) {
    out[status] = responseSchema(document, deref(document, value, `${where}.responses.${status}`), `${where} response ${status}`);
  }
  return out;
}

export interface FastifyOperation {
  method: string;
  url: string;
  path: string;
  public: boolean;
  schema: JsonObject;
}

/** Per operationId: its method, Fastify URL, whether it is open, and its route schema. */
export function operationSchemas(document: JsonObject): Record<string, FastifyOperation> {
  const operations: Record<string, FastifyOperation> = {};
  for (const [path, pathValue] of Object.entries(object(document.paths, 'paths'))) {
    const pathItem = object(pathValue, path);
    for (const method of UNSUPPORTED_METHODS) {
      if (pathItem[method] !== undefined)
        throw new UnsupportedConstruct(
          path,
          `the ${method} operation`,
          'Fastify answers HEAD and OPTIONS itself; declare get, put, post, delete or patch',
        );
    }
    for (const method of METHODS) {
      if (pathItem[method] === undefined) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const operation = object(pathItem[method], where);
      const id = operation.operationId;
      if (typeof id !== 'string') throw new Error(`openapi.yaml: ${where} has no operationId`);
      if (operations[id] !== undefined)
        throw new UnsupportedConstruct(
          where,
          `operationId ${id}, already used by ${operations[id].method} ${operations[id].path},`,
          'give every operation its own operationId',
        );
      const parameters = [
        ...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []),
        ...(Array.isArray(operation.parameters) ? operation.parameters : []),
      ].map((parameter, index) => deref(document, parameter, `${where}.parameters[${index}]`));
      for (const parameter of parameters) {
        if (parameter.in !== 'query' && parameter.in !== 'path') {
          throw new UnsupportedConstruct(
            where,
            `the ${show(parameter.in)} parameter ${show(parameter.name)}`,
            'only query and path parameters are validated; describe headers under the security schemes or leave them out',
          );
        }
      }
      const schema: JsonObject = {};
      const querystring = parameterSchema(document, parameters, 'query', where);
      const params = parameterSchema(document, parameters, 'path', where);
      if (querystring) schema.querystring = querystring;
      if (params) schema.params = params;
      if (operation.requestBody !== undefined) {
        const body = deref(document, operation.requestBody, `${where}.requestBody`);
        const content = object(body.content, `${where}.requestBody.content`);
        const others = Object.keys(content).filter((type) => type !== 'application/json');
        if (others.length > 0)
          throw new UnsupportedConstruct(
            `${where} request body`,
            `the media type ${others.join(', ')}`,
            'the service reads application/json bodies only',
          );
        schema.body = toJsonSchema(
          object(content['application/json'], `${where} JSON body`).schema ?? {},
          'json',
          document,
          `${where} request body`,
        );
      }
      const response = Object.fromEntries(
        Object.entries(responseSchemas(document, operation, where)).filter(([, value]) => value !== null),
      );
      if (Object.keys(response).length > 0) schema.response = response;
      const security = Array.isArray(operation.security) ? operation.security : document.security;
      operations[id] = {
        method: method.toUpperCase(),
        url: path.replace(/\{([^}]+)\}/g, ':$1'),
        path,
        public: Array.isArray(security) && security.length === 0,
        schema,
      };
    }
  }
  return operations;
}
