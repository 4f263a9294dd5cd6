// A page of plants as every store answers it: its JSON text, its ids, and where the next page starts.
import type { components } from '../../generated/types.js';
import { jsonText, type JsonText } from '../contract/json-text.js';
import { encodeCursor } from './cursor.js';
import { listingJson, type ListingJson } from './listing-json.js';

type Plant = components['schemas']['Plant'];

/** A page's application/json text: the JSON of its plants (a store that writes it in SQL says so where it reads it). */
export type PageJson = JsonText<Plant[]>;

/** A plant row as a store that reads rows has it (PostgreSQL): rows come in ascending id order. */
export type PlantRow = [id: bigint, name: string, tag: string | null];

/** Where the next page starts, when one follows: after this page's last id, at the id of its first plant. */
export interface NextPage {
  lastId: bigint;
  nextId: bigint;
}

/**
 * What a cache may hold for a page, beside two bytes a character of its texts (see `bytes`): roughly
 * the page object itself and its cache entry.
 */
const PAGE_OVERHEAD = 120;

/**
 * One page of plants in both of GET /plants's representations. Both are cut from the same rows at
 * the same place, so they hold the same plants and share one next cursor: the listing cannot
 * paginate differently from the default.
 */
export class PlantPage {
  /** When more plants follow: the id of this page's last plant... */
  readonly lastId?: bigint;
  /** ...and the cursor of the next page, which starts after it... */
  readonly cursor?: string;
  /** ...whose first plant has this id: deleting a plant after that one leaves this page as it is. */
  readonly nextId?: bigint;
  readonly #ids: string;
  #listing: ListingJson | undefined;

  /**
   * `json` is the page's plants as the application/json text GET /plants answers, exactly as
   * JSON.stringify writes them: a page a store keeps and hands out again is sent as it is, byte for
   * byte. `ids` is their ids as decimal digits joined by commas, all the listing needs. A page holds
   * these two strings and no rows: a page outlives its request in the promise that carried it, which
   * the young-generation GC counts as alive until the next full GC, and then every object the page
   * holds is copied and promoted (the CPU per extra row of docs/benchmarks.md's page-size scenario).
   */
  constructor(
    readonly json: PageJson,
    ids: string,
    next?: NextPage,
  ) {
    this.#ids = ids;
    if (next !== undefined) {
      this.lastId = next.lastId;
      this.cursor = encodeCursor(next.lastId);
      this.nextId = next.nextId;
    }
  }

  /**
   * The same plants as application/vnd.plant-store.listing+json text, with their ids. Made on the
   * first request that asks for it, from the page's own text, and kept with the page (the SQLite
   * store caches first pages), so an answer in the default representation never pays for it.
   */
  get listingJson(): ListingJson {
    return (this.#listing ??= listingJson(this.#ids === '' ? [] : this.#ids.split(','), JSON.parse(this.json) as Plant[]));
  }

  /**
   * Roughly what the page may take in memory, for a cache's budget, two bytes a character: its JSON text,
   * its ids' text and, once asked for, its listing (the JSON text again, plus `"id":<digits>,` a plant: at
   * most 3.5 characters a character of the ids' text, where each id but the last takes at least two, and
   * 3.5 more for the last). Fixed when the page is cut, so a cache's sum stays exact.
   */
  get bytes(): number {
    return PAGE_OVERHEAD + 2 * (2 * this.json.length + Math.ceil(4.5 * this.#ids.length) + 4);
  }
}

/** The rows to read for a page of `limit` plants: one more than the page holds says whether another page follows. */
export const rowsToRead = (limit: number): number => limit + 1;

/** The page of (at most) `limit` plants from the rows read with rowsToRead(limit); the next page starts after its last id. */
export function toPage(rows: readonly PlantRow[], limit: number): PlantPage {
  const count = Math.min(rows.length, limit);
  const plants: Plant[] = [];
  const ids: bigint[] = [];
  for (let i = 0; i < count; i++) {
    const [id, name, tag] = rows[i]!;
    ids.push(id);
    plants.push(tag === null ? { name } : { name, tag });
  }
  const next = rows.length > limit ? { lastId: rows[limit - 1]![0], nextId: rows[limit]![0] } : undefined;
  return new PlantPage(jsonText(plants), ids.join(','), next); // join: one flat string, where += makes a rope
}
