// The page-building ceiling: bare Fastify answering GET /plants?limit&cursor with the page Plant Store
// would answer for the bench user, built per request from memory: the cursor decoded by Plant Store's
// own codec, the plants after it taken from an array, serialized through the same response schema,
// and a Link to the next page. No auth, no query validation, no database, no logger.
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
      const after = cursor === undefined ? 0 : Math.max(0, Math.min(plants.length, Number(decodeCursor(cursor))));
      const page = plants.slice(after, after + limit);
      const lastId = after + page.length;
      if (lastId < plants.length) reply.header('link', `</plants?limit=${limit}&cursor=${encodeCursor(BigInt(lastId))}>; rel="next"`);
      reply.send(page);
    },
  );
  return app;
}
