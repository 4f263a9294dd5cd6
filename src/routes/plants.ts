// The three plant operations; schemas and types come from generated/, storage from app.store.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { operations } from '../../generated/types.js';
import type { JsonPlantPage } from '../store/plant-store.js';
import { PlantConflict, PlantNotFound } from '../errors.js';
import { decodeCursor, encodeCursor } from '../pagination/cursor.js';
import { operation } from '../contract/operation.js';

type ListQuery = NonNullable<operations['listPlants']['parameters']['query']>;
type NewPlant = operations['addPlant']['requestBody']['content']['application/json'];
type DeleteParams = operations['deletePlant']['parameters']['path'];

const nextLink = (limit: number, lastId: bigint) => `</plants?limit=${limit}&cursor=${encodeCursor(lastId)}>; rel="next"`;

/** Link headers of the pages a store hands out again (cached first pages), made once per page. */
const links = new WeakMap<JsonPlantPage, { limit: number; link: string }>();

export default async function plantRoutes(app: FastifyInstance) {
  app.route<{ Querystring: ListQuery }>({
    ...operation('listPlants'),
    // Not async: with a read view (SQLite) the page is at hand, and the answer goes out without a promise.
    handler: (request, reply) => {
      const limit = Number(request.query.limit); // validation filled in the default
      const cursor = request.query.cursor;
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      if (request.readView === null) return listPlants(request.user, after, limit, reply);
      const page = request.readView.listPlantsJson(request.user, after, limit);
      if (page.lastId !== undefined) {
        let known = links.get(page);
        if (known?.limit !== limit) links.set(page, (known = { limit, link: nextLink(limit, page.lastId) }));
        reply.header('link', known.link);
      }
      // Already JSON of the response schema's shape: sent as it is, not serialized again.
      reply.type('application/json; charset=utf-8').send(page.json);
    },
  });

  /** A page from a store without read views, serialized by the response schema. */
  async function listPlants(owner: string, after: bigint | undefined, limit: number, reply: FastifyReply) {
    const page = await app.store.listPlants(owner, after, limit);
    if (page.lastId !== undefined) reply.header('link', nextLink(limit, page.lastId));
    return page.plants;
  }

  app.route<{ Body: NewPlant }>({
    ...operation('addPlant'),
    handler: async (request) => {
      const { id, name, tag } = request.body;
      const plant = tag === undefined ? { name } : { name, tag };
      const result = await app.store.addPlant(request.user, { id: BigInt(id), ...plant });
      if (result === 'conflict') throw new PlantConflict(String(id));
      return plant;
    },
  });

  app.route<{ Params: DeleteParams }>({
    ...operation('deletePlant'),
    handler: async (request, reply) => {
      const id = BigInt(request.params.id);
      if (!(await app.store.deletePlant(request.user, id))) throw new PlantNotFound(String(id));
      return reply.code(204).send();
    },
  });
}
