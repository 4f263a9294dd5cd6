// Turns the OpenAPI document into the JSON Schemas Fastify validates and serializes with.
// OpenAPI-only keywords are stripped here so Ajv can keep its strict mode on.
import { resolveRef } from './openapi-ref.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
/** How a schema is used: a JSON request body, a text value (query or path), or a response. */
type Part = 'json' | 'text' | 'response';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const OPENAPI_ONLY = new Set(['example', 'examples', 'deprecated', 'xml', 'externalDocs', 'discriminator', 'readOnly', 'writeOnly']);
const SCHEMA_VALUED = new Set(['items', 'additionalProperties', 'not', 'contains', 'propertyNames']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const COMPONENT_SCHEMA = '#/components/schemas/';

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

export function toJsonSchema(schema: Json, part: Part, document: JsonObject): Json {
  if (!isObject(schema)) return schema;
  if (typeof schema.$ref === 'string') {
    if (!schema.$ref.startsWith(COMPONENT_SCHEMA)) throw new Error(`unsupported $ref ${schema.$ref}`);
    // Responses share the components added with addSchema; requests inline them,
    // because their integers are checked differently.
    if (part === 'response') return { $ref: `${schema.$ref.slice(COMPONENT_SCHEMA.length)}#` };
    return toJsonSchema(deref(document, schema, schema.$ref), part, document);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (OPENAPI_ONLY.has(key) || key.startsWith('x-')) continue;
    if (key === 'format' && (value === 'int32' || value === 'int64')) continue;
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, toJsonSchema(sub, part, document)]));
    } else if (SCHEMA_VALUED.has(key)) {
      out[key] = toJsonSchema(value, part, document);
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub) => toJsonSchema(sub, part, document));
    } else {
      out[key] = value;
    }
  }
  return schema.type === 'integer' && part !== 'response' ? exactInteger(out, schema.format, part) : out;
}

/** Component schemas, each with `$id` equal to its name, for `fastify.addSchema`. */
export function componentSchemas(document: JsonObject): JsonObject[] {
  const schemas = object(object(document.components, 'components').schemas, 'components.schemas');
  return Object.entries(schemas).map(([name, schema]) => ({ $id: name, ...object(toJsonSchema(schema, 'response', document), name) }));
}

function parameterSchema(document: JsonObject, parameters: JsonObject[], location: string): JsonObject | undefined {
  const matching = parameters.filter((parameter) => parameter.in === location);
  if (matching.length === 0) return undefined;
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const parameter of matching) {
    const name = String(parameter.name);
    properties[name] = toJsonSchema(parameter.schema ?? {}, 'text', document);
    if (parameter.required === true) required.push(name);
  }
  // Unknown query parameters are ignored (a token sent as ?access_token= must not matter).
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

function responseSchemas(document: JsonObject, operation: JsonObject, where: string): JsonObject {
  const out: JsonObject = {};
  for (const [status, value] of Object.entries(object(operation.responses, `${where}.responses`))) {
    const response = deref(document, value, `${where}.responses.${status}`);
    const json = isObject(response.content) ? response.content['application/json'] : undefined;
    // A response without a JSON body (204, YAML) has nothing to serialize.
    out[status] = isObject(json) && json.schema !== undefined ? toJsonSchema(json.schema, 'response', document) : null;
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
    for (const method of METHODS) {
      if (pathItem[method] === undefined) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const operation = object(pathItem[method], where);
      const id = operation.operationId;
      if (typeof id !== 'string') throw new Error(`openapi.yaml: ${where} has no operationId`);
      const parameters = [...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []), ...(Array.isArray(operation.parameters) ? operation.parameters : [])]
        .map((parameter, index) => deref(document, parameter, `${where}.parameters[${index}]`));
      const schema: JsonObject = {};
      const querystring = parameterSchema(document, parameters, 'query');
      const params = parameterSchema(document, parameters, 'path');
      if (querystring) schema.querystring = querystring;
      if (params) schema.params = params;
      if (operation.requestBody !== undefined) {
        const body = deref(document, operation.requestBody, `${where}.requestBody`);
        const content = object(body.content, `${where}.requestBody.content`);
        schema.body = toJsonSchema(object(content['application/json'], `${where} JSON body`).schema ?? {}, 'json', document);
      }
      const response = Object.fromEntries(Object.entries(responseSchemas(document, operation, where)).filter(([, value]) => value !== null));
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
