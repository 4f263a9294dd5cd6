// Operations are registered from the contract: open or protected as `security` says, and start-up
// fails when an operation has no handler or a handler no operation.
import Fastify from 'fastify';
import t from 'tap';
import { operations } from '../../generated/schemas.js';
import operationRoutes, { HANDLERS_LOCATION, mismatches, type Handlers } from '../../src/contract/operation-routes.js';
import { buildTestApp, inject } from '../helpers/app.js';

t.test('differences between operations and handlers are named, each once', async (t) => {
  t.same(mismatches(['a', 'b'], ['b', 'a']), []);
  t.same(mismatches(['a', 'b', 'c'], ['a', 'x']), [
    'operation b has no handler',
    'operation c has no handler',
    'handler x has no operation in openapi.yaml',
  ]);
});

t.test('start-up fails when a handler is missing or has no operation, naming where handlers live', async (t) => {
  // As a run through tsx would (it does not type-check): maps the compiler would refuse (typed-handlers.test.ts).
  const all: Record<string, () => Promise<object>> = Object.fromEntries(Object.keys(operations).map((id) => [id, async () => ({})]));
  const { listPlants: _missing, ...withoutOne } = all;
  const where = ` (handlers live in ${HANDLERS_LOCATION})`;
  t.match(where, /src\/routes\/plants\.ts/);
  for (const [handlers, message] of [
    [withoutOne, `the routes do not match openapi.yaml: operation listPlants has no handler${where}`],
    [
      { ...all, renamePlant: async () => ({}) },
      `the routes do not match openapi.yaml: handler renamePlant has no operation in openapi.yaml${where}`,
    ],
  ] as const) {
    const app = Fastify();
    await t.rejects(
      async () => {
        await app.register(operationRoutes, { handlers: handlers as unknown as Handlers, protect: async () => undefined });
        await app.ready();
      },
      { message },
    );
    await app.close();
  }
});

t.test('every operation is open or needs a token exactly as its security says', async (t) => {
  const app = await buildTestApp(t);
  for (const [id, operation] of Object.entries(operations)) {
    const url = operation.url.replace(/:(\w+)/g, '1');
    const reply = await inject(t, app, { method: operation.method, url });
    if (operation.public) t.not(reply.status, 401, `${id} (security: []) answers without a token`);
    else t.equal(reply.status, 401, `${id} needs a token`);
  }
});
