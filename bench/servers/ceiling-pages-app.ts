// The page-building ceiling: bare Fastify answering GET /plants at a cursor with the page and Link Plant
// Store would send the bench user, built per request from memory; no auth, validation, database or logger.
import Fastify, { type FastifyInstance } from 'fastify';
import { componentSchemas } from '../../generated/schemas.js';
import { decodeCursor, encodeCursor } from '../cursors.js';
import { benchUserPlants } from './fixed-page.js';

export function buildCeilingPages(): FastifyInstance {
  const app = Fastify();
  for (const schema of componentSchemas) app.addSchema(schema);
  const plants = benchUserPlants(); // plant id at index id - 1
  app.get<{ Querystring: { limit?: string; cursor?: string } }>(
    '/plants',
    { schema: { response: { 200: { type: 'array', items: { $ref: 'Plant#' } } } } },
    (request, reply) => {
      const limit = Number(request.query.limit ?? 100);
      const { cursor } = request.query;
      // Plant Store's own cursor codec and response schema: the same work to read the cursor and write the page.
      const after = cursor === undefined ? 0 : Math.max(0, Math.min(plants.length, Number(decodeCursor(cursor))));
      const page = plants.slice(after, after + limit);
      const lastId = after + page.length;
      if (lastId < plants.length) reply.header('link', `</plants?limit=${limit}&cursor=${encodeCursor(BigInt(lastId))}>; rel="next"`);
      reply.send(page);
    },
  );
  return app;
}
