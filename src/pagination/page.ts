// A page of plants, cut one way for every store: limit + 1 rows read, the page's last id, the next page's cursor.
import type { components } from '../../generated/types.js';
import { encodeCursor } from './cursor.js';
import { listingJson } from './listing-json.js';

type Plant = components['schemas']['Plant'];

/** A plant row as a store reads it: rows come in ascending id order. */
export type PlantRow = [id: bigint, name: string, tag: string | null];

/**
 * What a cache may hold for a page, two bytes a character: its JSON text, its rows (their strings
 * are no longer than that text; an array and a bigint each) and, once asked for, its listing (the
 * text again plus `"id":<20 digits>,` a plant). Fixed when the page is cut, so a cache's sum stays exact.
 */
const TEXT_COPIES = 3;
const BYTES_PER_ROW = 50 + 2 * 26;

/**
 * One page of plants in both of GET /plants's representations. Both are cut from the same rows at
 * the same place, so they hold the same plants and share one next cursor: the listing cannot
 * paginate differently from the default.
 */
export class PlantPage {
  /**
   * The page's plants as the application/json text GET /plants answers. Made here, once per page,
   * for every store alike: a page a store keeps and hands out again is sent as it is, byte for byte.
   */
  readonly json: string;
  /** When more plants follow: the id of this page's last plant... */
  readonly lastId?: bigint;
  /** ...and the cursor of the next page, which starts after it. */
  readonly cursor?: string;
  // Kept, not copied: the listing is made only when a request asks for it (see listingJson below).
  readonly #rows: readonly PlantRow[];
  readonly #count: number;
  #listing: string | undefined;

  constructor(rows: readonly PlantRow[], limit: number) {
    const count = Math.min(rows.length, limit);
    const plants: Plant[] = [];
    for (let i = 0; i < count; i++) {
      const [, name, tag] = rows[i]!;
      plants.push(tag === null ? { name } : { name, tag });
    }
    this.json = JSON.stringify(plants);
    this.#rows = rows;
    this.#count = count;
    if (rows.length > limit) {
      this.lastId = rows[limit - 1]![0];
      this.cursor = encodeCursor(this.lastId);
    }
  }

  /**
   * The same plants as application/vnd.plant-store.listing+json text, with their ids. Made on the
   * first request that asks for it and kept with the page (the SQLite store caches first pages), so
   * an answer in the default representation never pays for it.
   */
  get listingJson(): string {
    return (this.#listing ??= listingJson(this.#rows, this.#count));
  }

  /** Roughly what the page may take in memory, for a cache's budget. */
  get bytes(): number {
    return this.json.length * 2 * TEXT_COPIES + this.#count * BYTES_PER_ROW;
  }
}

/** The rows to read for a page of `limit` plants: one more than the page holds says whether another page follows. */
export const rowsToRead = (limit: number): number => limit + 1;

/** The page of (at most) `limit` plants from the rows read with rowsToRead(limit); the next page starts after its last id. */
export function toPage(rows: readonly PlantRow[], limit: number): PlantPage {
  return new PlantPage(rows, limit);
}
