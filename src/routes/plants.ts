// The three plant operations; schemas and types come from generated/, storage from the request's store handle.
import type { FastifyReply } from 'fastify';
import type { Handlers } from '../contract/operation-routes.js';
import { PlantConflict, PlantNotFound } from '../errors.js';
import { DEFAULT_CONTENT_TYPE, LISTING_CONTENT_TYPE, wantsListing } from '../negotiation/list-representation.js';
import { decodeCursor } from '../pagination/cursor.js';

/** Adds Accept to Vary, keeping what is there (CORS puts Origin in it before the handler runs). */
function varyByAccept(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  reply.header('vary', vary === undefined ? 'Accept' : `${String(vary)}, Accept`);
}

export const plantHandlers = {
  listPlants: async (request, reply) => {
    const limit = Number(request.query.limit); // validation filled in the default
    const cursor = request.query.cursor;
    const page = await request.store.listPlants(request.user, cursor === undefined ? undefined : decodeCursor(cursor), limit);
    if (page.cursor !== undefined) reply.header('link', `</plants?limit=${limit}&cursor=${page.cursor}>; rel="next"`);
    varyByAccept(reply);
    // The page is already the JSON of the chosen representation's schema: sent as it is, not serialized again.
    if (wantsListing(request.headers.accept)) return reply.type(LISTING_CONTENT_TYPE).code(200).send(page.listingJson);
    return reply.type(DEFAULT_CONTENT_TYPE).code(200).send(page.json);
  },

  addPlant: async (request, reply) => {
    const { name, tag } = request.body;
    const id = BigInt(request.body.id);
    const plant = tag === undefined ? { name } : { name, tag };
    const result = await request.store.addPlant(request.user, { id, ...plant });
    if (result === 'conflict') throw new PlantConflict(String(id));
    // The body stays the spec's Plant; the id, in exact digits, is where the plant is.
    reply.header('location', `/plants/${id}`);
    return plant;
  },

  deletePlant: async (request, reply) => {
    const id = BigInt(request.params.id);
    if (!(await request.store.deletePlant(request.user, id))) throw new PlantNotFound(String(id));
    return reply.code(204).send();
  },
} satisfies Partial<Handlers>;
