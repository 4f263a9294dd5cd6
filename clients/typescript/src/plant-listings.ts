// Reads a GET /plants listing body (application/vnd.plant-store.listing+json) into PlantListing items with bigint ids.
import type { components, operations } from '@plant-store/client/types';
import { parseExactJson, type ExactJson } from './generated/parse-exact-json.js';

/** A plant with its id, exact: the listing representation of GET /plants. */
export type PlantListing = Omit<components['schemas']['PlantListing'], 'id'> & { id: bigint };

/** The media type to ask for in Accept, checked against openapi.yaml's by the compiler. */
export const LISTING_MEDIA_TYPE =
  'application/vnd.plant-store.listing+json' satisfies keyof operations['listPlants']['responses'][200]['content'];

const isObject = (value: ExactJson | undefined): value is { [key: string]: ExactJson } =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The body's plants; throws a TypeError naming the first item that is not a PlantListing. */
export function parsePlantListings(text: string): PlantListing[] {
  const body = parseExactJson(text);
  if (!Array.isArray(body)) throw new TypeError('The listing body is not a JSON array.');
  return body.map((item, index) => {
    if (
      !isObject(item) ||
      typeof item.id !== 'bigint' ||
      typeof item.name !== 'string' ||
      (item.tag !== undefined && typeof item.tag !== 'string')
    ) {
      throw new TypeError(`Item ${index} of the listing is not a plant with an integer id, a name and an optional tag.`);
    }
    return item.tag === undefined ? { id: item.id, name: item.name } : { id: item.id, name: item.name, tag: item.tag };
  });
}
