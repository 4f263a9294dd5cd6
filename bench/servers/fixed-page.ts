// The bench user's plants exactly as the data generator writes them, so the ceilings send the same bytes.
import { PLANTS_PER_USER, plantName, plantTag } from '../plant-content.js';

export type Plant = { name: string; tag?: string };

function plant(id: number): Plant {
  const tag = plantTag(id);
  return tag === null ? { name: plantName(id) } : { name: plantName(id), tag };
}

/** Plants 1 to `size`: the bench user's first page. */
export function firstPage(size: number): Plant[] {
  return Array.from({ length: size }, (_, index) => plant(index + 1));
}

/** All of the bench user's generated plants; plant `id` at index id - 1. */
export function benchUserPlants(): Plant[] {
  return firstPage(PLANTS_PER_USER);
}
