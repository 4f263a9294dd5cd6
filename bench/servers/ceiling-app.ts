// The fixed-answer ceiling: bare Fastify answering each Plant Store call with a constant of the right
// shape, status and headers; no auth, validation, database, serialization or logger.
import Fastify, { type FastifyInstance } from 'fastify';
import { encodeCursor } from '../cursors.js';
import { firstPage } from './fixed-page.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const PAGE = JSON.stringify(firstPage(20));
const LINK = `</plants?limit=20&cursor=${encodeCursor(20n)}>; rel="next"`;
const PLANT = JSON.stringify({ name: 'Bench plant', tag: 'bench' });

export function buildCeiling(): FastifyInstance {
  const app = Fastify();
  // Whatever the cursor: the same page, as a cached first page is sent.
  app.get('/plants', (_request, reply) => {
    reply.header('link', LINK).type(JSON_TYPE).send(PAGE);
  });
  // Fastify parses the JSON body, as any server must to answer a create.
  app.post('/plants', (_request, reply) => {
    reply.type(JSON_TYPE).send(PLANT);
  });
  app.delete('/plants/:id', (_request, reply) => {
    reply.code(204).send();
  });
  return app;
}
