// First pages of each owner's plants, per page size: the page every list starts with, asked for
// far more often than it changes. The store drops an owner's pages inside each of their writes,
// and all pages when another connection has committed, so none is stale.
import type { PlantPage } from '../../pagination/page.js';

/** Roughly what an entry costs beyond its page. */
const ENTRY_OVERHEAD = 120;

const entryBytes = (page: PlantPage) => page.bytes + ENTRY_OVERHEAD;

export class PageCache {
  readonly #owners = new Map<string, Map<number, PlantPage>>();
  #bytes = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.#bytes;
  }

  get(owner: string, limit: number): PlantPage | undefined {
    return this.#owners.get(owner)?.get(limit);
  }

  set(owner: string, limit: number, page: PlantPage): void {
    const size = entryBytes(page);
    if (size > this.maxBytes) return;
    let pages = this.#owners.get(owner);
    if (pages === undefined) this.#owners.set(owner, (pages = new Map<number, PlantPage>()));
    const previous = pages.get(limit);
    if (previous !== undefined) this.#bytes -= entryBytes(previous);
    pages.set(limit, page);
    this.#bytes += size;
    // Owners in the order they were first cached: the oldest go first.
    for (const oldest of this.#owners.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      this.forget(oldest);
    }
  }

  /** Forgets the owner's pages for which `changed` says yes. */
  forgetWhere(owner: string, changed: (page: PlantPage) => boolean): void {
    const pages = this.#owners.get(owner);
    if (pages === undefined) return;
    for (const [limit, page] of pages) {
      if (!changed(page)) continue;
      this.#bytes -= entryBytes(page);
      pages.delete(limit);
    }
    if (pages.size === 0) this.#owners.delete(owner);
  }

  forget(owner: string): void {
    const pages = this.#owners.get(owner);
    if (pages === undefined) return;
    for (const page of pages.values()) this.#bytes -= entryBytes(page);
    this.#owners.delete(owner);
  }

  clear(): void {
    this.#owners.clear();
    this.#bytes = 0;
  }
}
