// Local $ref resolution, shared by the generator, the gate, the conformance run and the contract tests.
import t from 'tap';
import { followRef, resolveRef } from '../../../clients/conformance/src/openapi-ref.js';

const document = {
  paths: { '/plants/{id}': { get: { ok: true } } },
  components: {
    schemas: {
      A: { $ref: '#/components/schemas/B' },
      B: { type: 'string' },
      'x~y': { type: 'integer' },
      Loop: { $ref: '#/components/schemas/Loop' },
    },
  },
};

t.test('references are followed, through references to references, with JSON Pointer escapes', async (t) => {
  t.same(resolveRef(document, { $ref: '#/components/schemas/A' }), { type: 'string' });
  t.same(resolveRef(document, { $ref: '#/paths/~1plants~1{id}/get' }), { ok: true });
  t.same(resolveRef(document, { $ref: '#/components/schemas/x~0y' }), { type: 'integer' });
  const plain = { type: 'object' };
  t.equal(resolveRef(document, plain), plain, 'anything else is itself');
});

t.test('a reference that cannot be followed is an error naming it', async (t) => {
  t.throws(() => resolveRef(document, { $ref: '#/components/schemas/Missing' }), /#\/components\/schemas\/Missing names nothing/);
  t.throws(() => resolveRef(document, { $ref: 'other.yaml#/x' }), /other\.yaml#\/x is not a local reference/);
  t.throws(() => resolveRef(document, { $ref: '#/components/schemas/Loop' }), /refers to itself/);
});

t.test('siblings of a $ref are laid over its target, and the pointer says where the target is', async (t) => {
  const withSiblings = { paths: {}, components: { responses: { Base: { description: 'base', content: {} } } } };
  t.same(followRef(withSiblings, { $ref: '#/components/responses/Base', description: 'mine' }, '/paths/~1x/get/responses/400'), {
    node: { description: 'mine', content: {} },
    pointer: '/components/responses/Base',
  });
  t.same(followRef(withSiblings, { description: 'plain' }, '/here'), { node: { description: 'plain' }, pointer: '/here' });
});
