// The generator's OpenAPI -> Fastify schema conversion, and that its output passes strict Ajv.
import Fastify from 'fastify';
import t from 'tap';
import { componentSchemas, operations } from '../../generated/schemas.js';
import { toJsonSchema } from '../../scripts/openapi-to-fastify.js';
import { ajvOptions } from '../../src/validation/ajv-options.js';

const document = { components: { schemas: { Thing: { type: 'object', example: { a: 1 } } } } };

t.test('OpenAPI-only keywords are stripped; names that look like them are kept', async (t) => {
  const schema = { type: 'object', example: {}, deprecated: true, 'x-internal': 1, properties: { example: { type: 'string', examples: ['a'] } } };
  t.same(toJsonSchema(schema, 'response', document), { type: 'object', properties: { example: { type: 'string' } } });
});

t.test('request integers become exactInteger; response integers stay integers', async (t) => {
  const id = { type: 'integer', format: 'int64', description: 'id' };
  t.same(toJsonSchema(id, 'json', document), { description: 'id', exactInteger: { format: 'int64', text: false } });
  t.same(toJsonSchema({ type: 'integer', format: 'int32', minimum: 1, maximum: 9 }, 'text', document), { exactInteger: { format: 'int32', text: true, minimum: 1, maximum: 9 } });
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
