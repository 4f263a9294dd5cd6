// A page of plants, cut one way for every store: limit + 1 rows read, the page's last id, the next page's cursor.
import type { components } from '../../generated/types.js';
import { encodeCursor } from './cursor.js';

type Plant = components['schemas']['Plant'];

/** A plant row as a store reads it: rows come in ascending id order. */
export type PlantRow = [id: bigint, name: string, tag: string | null];

export interface PlantPage {
  /**
   * The page's plants as the JSON text GET /plants answers. Made here, once per page, for every
   * store alike: a page a store keeps and hands out again is sent as it is, byte for byte.
   */
  json: string;
  /** When more plants follow: the id of this page's last plant... */
  lastId?: bigint;
  /** ...and the cursor of the next page, which starts after it. */
  cursor?: string;
}

/** The rows to read for a page of `limit` plants: one more than the page holds says whether another page follows. */
export const rowsToRead = (limit: number): number => limit + 1;

/** The page of (at most) `limit` plants from the rows read with rowsToRead(limit); the next page starts after its last id. */
export function toPage(rows: readonly PlantRow[], limit: number): PlantPage {
  const plants: Plant[] = [];
  for (let i = 0; i < rows.length && i < limit; i++) {
    const [, name, tag] = rows[i]!;
    plants.push(tag === null ? { name } : { name, tag });
  }
  const json = JSON.stringify(plants);
  if (rows.length <= limit) return { json };
  const lastId = rows[limit - 1]![0];
  return { json, lastId, cursor: encodeCursor(lastId) };
}
