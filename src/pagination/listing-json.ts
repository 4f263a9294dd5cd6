// The listing representation of a page (application/vnd.plant-store.listing+json): `{id, name, tag}` items, ids as exact digits.
import type { components } from '../../generated/types.js';
import type { JsonText } from '../contract/json-text.js';

type Plant = components['schemas']['Plant'];

/** The listing's text: the JSON of PlantListing items, written here by hand to keep ids exact. */
export type ListingJson = JsonText<Array<components['schemas']['PlantListing']>>;

/**
 * The JSON text of the plants as PlantListing items, each with the id at the same place. Names and
 * tags are written by JSON.stringify, as in the page's application/json text, so both say the same
 * plants in the same bytes; the id goes in as its own decimal digits, exact where JSON.stringify of a number is not.
 */
export function listingJson(ids: readonly string[], plants: readonly Plant[]): ListingJson {
  let text = '[';
  for (let i = 0; i < plants.length; i++) {
    const { name, tag } = plants[i]!;
    text += `${i === 0 ? '' : ','}{"id":${ids[i]},"name":${JSON.stringify(name)}${tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`}}`;
  }
  return `${text}]` as ListingJson;
}
