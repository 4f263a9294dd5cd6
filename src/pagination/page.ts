// A page of plants as every store answers it, in both of GET /plants's representations: its JSON text,
// its ids, and where the next page starts.
import type { components } from '../../generated/types.js';
import { jsonText, type JsonText } from '../contract/json-text.js';
import { encodeCursor } from './cursor.js';

type Plant = components['schemas']['Plant'];

/** A page's application/json text: the JSON of its plants (a store that writes it in SQL says so where it reads it). */
export type PageJson = JsonText<Plant[]>;

/** The listing's text (application/vnd.plant-store.listing+json): PlantListing items, ids as exact digits. */
type ListingJson = JsonText<Array<components['schemas']['PlantListing']>>;

/** A plant row as a store that reads rows has it (PostgreSQL): rows come in ascending id order. */
export type PlantRow = [id: bigint, name: string, tag: string | null];

/** What a cache may hold for a page beside its texts: roughly the page object itself and its cache entry. */
const PAGE_OVERHEAD = 120;

/**
 * Both representations are cut from the same rows at the same place, so they hold the same plants and
 * share one next cursor: the listing cannot paginate differently from the default.
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
   * `json` is exactly JSON.stringify's text of the plants, so a cached page is sent byte for byte; `ids`
   * their ids as decimal digits joined by commas. A page holds these two strings and no rows: a page
   * outlives its request in the promise that carried it, and every object it holds would be copied and
   * promoted by the GC (the CPU per extra row of docs/benchmarks.md's page-size scenario).
   */
  constructor(
    readonly json: PageJson,
    ids: string,
    next?: { lastId: bigint; nextId: bigint },
  ) {
    this.#ids = ids;
    if (next !== undefined) {
      this.lastId = next.lastId;
      this.cursor = encodeCursor(next.lastId);
      this.nextId = next.nextId;
    }
  }

  /**
   * The listing text, made on the first request that asks for it and kept with the page (the SQLite
   * store caches first pages), so an answer in the default representation never pays for it. Names and
   * tags are written by JSON.stringify, as in `json`; each id goes in as its own digits, exact where
   * JSON.stringify of a number is not.
   */
  get listingJson(): ListingJson {
    if (this.#listing !== undefined) return this.#listing;
    const ids = this.#ids === '' ? [] : this.#ids.split(',');
    const plants = JSON.parse(this.json) as Plant[];
    let text = '[';
    for (let i = 0; i < plants.length; i++) {
      const { name, tag } = plants[i]!;
      text += `${i === 0 ? '' : ','}{"id":${ids[i]},"name":${JSON.stringify(name)}${tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`}}`;
    }
    return (this.#listing = `${text}]` as ListingJson);
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
