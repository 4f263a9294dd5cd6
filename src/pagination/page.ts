// A page of plants, cut one way for every store: limit + 1 rows read, the page's last id, the next page's cursor.
import type { components } from '../../generated/types.js';
import { encodeCursor } from './cursor.js';
import { listingJson } from './listing-json.js';

type Plant = components['schemas']['Plant'];

/** A plant row as a store reads it: rows come in ascending id order. */
export type PlantRow = [id: bigint, name: string, tag: string | null];

/**
 * What a cache may hold for a page, two bytes a character: its JSON text and, once asked for, its
 * listing (the text again plus `"id":<20 digits>,` a plant), and its ids (a bigint and a slot each);
 * plus, roughly, the page object itself and its cache entry. Fixed when the page is cut, so a cache's
 * sum stays exact.
 */
const TEXT_COPIES = 2;
const BYTES_PER_ROW = 32 + 2 * 26;
const PAGE_OVERHEAD = 120;

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
  /** ...and the cursor of the next page, which starts after it... */
  readonly cursor?: string;
  /** ...whose first plant has this id: deleting a plant after that one leaves this page as it is. */
  readonly nextId?: bigint;
  /**
   * Only the ids are kept for the listing, not the rows: a page outlives its request in the promise
   * that carried it, which the young-generation GC counts as alive until the next full GC, and then
   * every object the page holds is copied and promoted. Under 50 connections a page of 1,000 rows
   * cost 1,800 us of CPU kept whole, 1,370 us with only its text and ids (bench/findings.md, row cost).
   */
  readonly #ids: readonly bigint[];
  #listing: string | undefined;

  constructor(rows: readonly PlantRow[], limit: number) {
    const count = Math.min(rows.length, limit);
    const plants: Plant[] = [];
    const ids = new Array<bigint>(count); // sized once: its slots are what BYTES_PER_ROW counts
    for (let i = 0; i < count; i++) {
      const [id, name, tag] = rows[i]!;
      ids[i] = id;
      plants.push(tag === null ? { name } : { name, tag });
    }
    this.json = JSON.stringify(plants);
    this.#ids = ids;
    if (rows.length > limit) {
      this.lastId = rows[limit - 1]![0];
      this.cursor = encodeCursor(this.lastId);
      this.nextId = rows[limit]![0];
    }
  }

  /**
   * The same plants as application/vnd.plant-store.listing+json text, with their ids. Made on the
   * first request that asks for it, from the page's own text, and kept with the page (the SQLite
   * store caches first pages), so an answer in the default representation never pays for it.
   */
  get listingJson(): string {
    return (this.#listing ??= listingJson(this.#ids, JSON.parse(this.json) as Plant[]));
  }

  /** Roughly what the page may take in memory, for a cache's budget. */
  get bytes(): number {
    return PAGE_OVERHEAD + this.json.length * 2 * TEXT_COPIES + this.#ids.length * BYTES_PER_ROW;
  }
}

/** The rows to read for a page of `limit` plants: one more than the page holds says whether another page follows. */
export const rowsToRead = (limit: number): number => limit + 1;

/** The page of (at most) `limit` plants from the rows read with rowsToRead(limit); the next page starts after its last id. */
export function toPage(rows: readonly PlantRow[], limit: number): PlantPage {
  return new PlantPage(rows, limit);
}
