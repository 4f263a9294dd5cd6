// The generator's OpenAPI -> Fastify schema conversion, and that its output passes strict Ajv.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Fastify from 'fastify';
import t from 'tap';
import { componentSchemas, operations } from '../../generated/schemas.js';
import {
  componentSchemas as toComponentSchemas,
  operationSchemas,
  toJsonSchema,
  type JsonObject,
} from '../../scripts/openapi-to-fastify.js';
import { ajvOptions } from '../../src/validation/ajv-options.js';
import { projectRoot } from '../helpers/paths.js';

const document = { components: { schemas: { Thing: { type: 'object', example: { a: 1 } } } } };

t.test('OpenAPI-only keywords are stripped; names that look like them are kept', async (t) => {
  const schema = {
    type: 'object',
    example: {},
    deprecated: true,
    'x-internal': 1,
    properties: { example: { type: 'string', examples: ['a'] } },
  };
  t.same(toJsonSchema(schema, 'response', document), { type: 'object', properties: { example: { type: 'string' } } });
});

t.test('request integers become exactInteger; response integers stay integers', async (t) => {
  const id = { type: 'integer', format: 'int64', description: 'id' };
  t.same(toJsonSchema(id, 'json', document), { description: 'id', exactInteger: { format: 'int64', text: false } });
  t.same(toJsonSchema({ type: 'integer', format: 'int32', minimum: 1, maximum: 9 }, 'text', document), {
    exactInteger: { format: 'int32', text: true, minimum: 1, maximum: 9 },
  });
  t.same(toJsonSchema({ type: 'integer', format: 'int32' }, 'response', document), { type: 'integer' });
});

t.test('component references: shared by $id in responses, inlined in requests', async (t) => {
  t.same(toJsonSchema({ $ref: '#/components/schemas/Thing' }, 'response', document), { $ref: 'Thing#' });
  t.same(toJsonSchema({ $ref: '#/components/schemas/Thing' }, 'json', document), { type: 'object' });
});

t.test('every generated schema compiles under strict Ajv, and strict mode rejects leftovers', async (t) => {
  const app = Fastify({ ajv: ajvOptions });
  for (const schema of componentSchemas) app.addSchema(schema);
  for (const operation of Object.values(operations)) {
    app.route({ method: operation.method, url: operation.url, schema: operation.schema as never, handler: async () => ({}) });
  }
  await t.resolves(async () => app.ready(), 'all route schemas compile');
  await app.close();

  const leaky = Fastify({ ajv: ajvOptions });
  leaky.post('/x', { schema: { body: { type: 'object', example: { a: 1 } } } }, async () => ({}));
  await t.rejects(async () => leaky.ready(), /strict mode: unknown keyword: "example"/);
});

/** A small valid document; each case below breaks one thing in a copy of it. */
function documentWith(change: (document: any) => void): JsonObject {
  const document: any = {
    openapi: '3.1.0',
    info: { title: 't', version: '1.0.0' },
    paths: {
      '/things/{id}': {
        get: {
          operationId: 'getThing',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int64' } }],
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
        },
        post: {
          operationId: 'addThing',
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
    },
    components: { schemas: { Thing: { type: 'object', properties: { n: { type: 'integer' } } } } },
  };
  change(document);
  return document;
}

const generate = (document: JsonObject) => {
  toComponentSchemas(document);
  return operationSchemas(document);
};

t.test(
  "a response with several JSON media types gets Fastify's per-content-type form, and Fastify serializes by the reply's type",
  async (t) => {
    const listing = 'application/vnd.thing.listing+json';
    const document = documentWith((d) => {
      d.paths['/things/{id}'].get.responses['200'].content[listing] = {
        schema: { type: 'object', properties: { id: { type: 'integer', format: 'int64' }, n: { type: 'integer' } } },
      };
      d.paths['/things/{id}'].get.responses['200'].content['application/yaml'] = { schema: { type: 'string' } };
    });
    const response = generate(document).getThing!.schema.response as JsonObject;
    t.same(
      response['200'],
      {
        content: {
          'application/json': { schema: { $ref: 'Thing#' } },
          [listing]: { schema: { type: 'object', properties: { id: { type: 'integer' }, n: { type: 'integer' } } } },
        },
      },
      'each JSON media type with its schema; YAML has nothing to serialize',
    );
    t.same(
      generate(documentWith(() => undefined)).getThing!.schema.response,
      { '200': { $ref: 'Thing#' } },
      'application/json alone keeps the plain form',
    );

    const app = Fastify({ ajv: ajvOptions });
    for (const schema of toComponentSchemas(document)) app.addSchema(schema);
    const { method, url, schema } = generate(document).getThing!;
    app.route({
      method,
      url,
      schema: schema as never,
      handler: async (request, reply) => reply.type(request.headers.accept ?? 'application/json').send({ id: 7, n: 1, extra: true }),
    });
    const as = async (accept: string) => (await app.inject({ url: '/things/1', headers: { accept } })).body;
    t.equal(await as('application/json'), '{"n":1}', 'application/json through the Thing schema');
    t.equal(await as(listing), '{"id":7,"n":1}', 'the listing type through its own schema');
    await app.close();
  },
);

t.test('the generator stops, naming the construct and where it is, at anything it cannot do', async (t) => {
  t.ok(generate(documentWith(() => undefined)).getThing, 'the unbroken document generates');
  const cases: Array<[string, (document: any) => void, RegExp]> = [
    [
      'a header parameter',
      (d) => d.paths['/things/{id}'].get.parameters.push({ name: 'X-Trace', in: 'header', schema: { type: 'string' } }),
      /GET \/things\/\{id\}: the header parameter X-Trace is not supported/,
    ],
    [
      'a cookie parameter',
      (d) => d.paths['/things/{id}'].get.parameters.push({ name: 's', in: 'cookie', schema: { type: 'string' } }),
      /the cookie parameter s is not supported/,
    ],
    [
      'a non-JSON request body',
      (d) => (d.paths['/things/{id}'].post.requestBody.content['text/plain'] = { schema: { type: 'string' } }),
      /POST \/things\/\{id\} request body: the media type text\/plain is not supported/,
    ],
    [
      'type: [integer, null] in a request',
      (d) =>
        (d.paths['/things/{id}'].post.requestBody.content['application/json'].schema = {
          type: 'object',
          properties: { n: { type: ['integer', 'null'] } },
        }),
      /POST \/things\/\{id\} request body\.properties\.n: type: \[integer, null\] is not supported/,
    ],
    [
      'type: [integer, null] in a component',
      (d) => (d.components.schemas.Thing.properties.m = { type: ['null', 'integer'] }),
      /components\.schemas\.Thing\.properties\.m: type: \[null, integer\]/,
    ],
    [
      'a duplicate operationId',
      (d) => (d.paths['/things/{id}'].post.operationId = 'getThing'),
      /POST \/things\/\{id\}: operationId getThing, already used by GET \/things\/\{id\}, is not supported/,
    ],
    [
      'a HEAD operation',
      (d) => (d.paths['/things/{id}'].head = { operationId: 'headThing', responses: {} }),
      /\/things\/\{id\}: the head operation is not supported/,
    ],
    [
      'a JSON media type range in a response',
      (d) => (d.paths['/things/{id}'].get.responses['200'].content['application/*+json'] = { schema: { type: 'object' } }),
      /GET \/things\/\{id\} response 200: the JSON media type application\/\*\+json is not supported/,
    ],
    [
      'a JSON media type with parameters',
      (d) => (d.paths['/things/{id}'].get.responses['200'].content['application/vnd.t+json; version=2'] = { schema: { type: 'object' } }),
      /response 200: the JSON media type application\/vnd\.t\+json; version=2 is not supported/,
    ],
    [
      'a JSON media type in upper case',
      (d) => (d.paths['/things/{id}'].get.responses['200'].content['Application/JSON'] = { schema: { type: 'object' } }),
      /response 200: the JSON media type Application\/JSON is not supported/,
    ],
  ];
  for (const [name, change, message] of cases) t.throws(() => generate(documentWith(change)), message, name);
});

t.test('npm run generate on such a document exits 1 with that one line, writing nothing', async (t) => {
  const dir = t.testdir({
    'bad.yaml': JSON.stringify(documentWith((d) => d.paths['/things/{id}'].get.parameters.push({ name: 'X-Trace', in: 'header' }))),
  });
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(projectRoot, 'scripts', 'generate.ts'), '--check', '--input', join(dir, 'bad.yaml')],
    { encoding: 'utf8' },
  );
  t.equal(run.status, 1);
  t.match(
    run.stderr,
    /^generate: openapi\.yaml: GET \/things\/\{id\}: the header parameter X-Trace is not supported by scripts\/generate\.ts; /,
  );
  t.equal(run.stderr.trim().split('\n').length, 1, 'one line, no stack');
});
