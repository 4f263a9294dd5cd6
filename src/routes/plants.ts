// The three plant operations; schemas and types come from generated/, storage from the request's store handle.
import type { operations } from '../../generated/types.js';
import { handler, type Handlers } from '../contract/operation-routes.js';
import { PlantConflict, PlantNotFound } from '../errors.js';
import { decodeCursor } from '../pagination/cursor.js';

type ListQuery = NonNullable<operations['listPlants']['parameters']['query']>;
type NewPlant = operations['addPlant']['requestBody']['content']['application/json'];
type DeleteParams = operations['deletePlant']['parameters']['path'];

export const plantHandlers: Handlers = {
  listPlants: handler<{ Querystring: ListQuery }>(async (request, reply) => {
    const limit = Number(request.query.limit); // validation filled in the default
    const cursor = request.query.cursor;
    const page = await request.store.listPlants(request.user, cursor === undefined ? undefined : decodeCursor(cursor), limit);
    if (page.cursor !== undefined) reply.header('link', `</plants?limit=${limit}&cursor=${page.cursor}>; rel="next"`);
    // The page is already the JSON of the response schema's shape: sent as it is, not serialized again.
    return reply.type('application/json; charset=utf-8').send(page.json);
  }),

  addPlant: handler<{ Body: NewPlant }>(async (request) => {
    const { id, name, tag } = request.body;
    const plant = tag === undefined ? { name } : { name, tag };
    const result = await request.store.addPlant(request.user, { id: BigInt(id), ...plant });
    if (result === 'conflict') throw new PlantConflict(String(id));
    return plant;
  }),

  deletePlant: handler<{ Params: DeleteParams }>(async (request, reply) => {
    const id = BigInt(request.params.id);
    if (!(await request.store.deletePlant(request.user, id))) throw new PlantNotFound(String(id));
    return reply.code(204).send();
  }),
};
