// The listing representation of a page (application/vnd.plant-store.listing+json): `{id, name, tag}` items, ids as exact digits.
import type { PlantRow } from './page.js';

/**
 * The JSON text of the first `count` rows as PlantListing items. Names and tags are written by
 * JSON.stringify, as in the page's application/json text, so both say the same plants in the same
 * bytes; the id goes in as the bigint's own digits, which JSON.stringify cannot write.
 */
export function listingJson(rows: readonly PlantRow[], count: number): string {
  let text = '[';
  for (let i = 0; i < count; i++) {
    const [id, name, tag] = rows[i]!;
    text += `${i === 0 ? '' : ','}{"id":${id},"name":${JSON.stringify(name)}${tag === null ? '' : `,"tag":${JSON.stringify(tag)}`}}`;
  }
  return `${text}]`;
}
