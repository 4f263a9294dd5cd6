// Token owners cached in one instance for under a second: a revoked, expired or replaced token is refused by every
// instance within 1 s (DECISIONS.md, "Several instances"; docs/deploy.md), whatever fails, with nothing to keep in step.
// Why it holds: an entry ends ENTRY_MS after its lookup was sent, and the database read the token after that, so
// ENTRY_MS after a change commits no entry read before it is left: there is no notification to miss, nor connection to lose.
import type { TokenHash, TokenOwner } from '../plant-store.js';

/**
 * 900 ms, not 1 s: a request that finds its entry gone still waits for its own lookup before it is refused, and the
 * 100 ms left cover that round trip. Each instance looks up each token in use about once a second: nothing, at the
 * request rates where the cache matters.
 */
const ENTRY_MS = 900;
/** The most owners held (an ended one goes when asked for again, or as the oldest): a few MB, however many tokens are used. */
export const MAX_ENTRIES = 10_000;

/** What the database says about a token: its owner, and how long until it expires by its clock (null: never). */
interface FoundToken {
  owner: TokenOwner;
  expiresInMs: number | null;
}

export class TokenCache {
  /** Each owner with the performance.now() after which it is not used; oldest first (Map keeps insertion order). */
  readonly #entries = new Map<TokenHash, { owner: TokenOwner; until: number }>();
  /** Moves at each revocation by this instance: a lookup sent before it may hold the old answer, which is not cached. */
  #generation = 0;
  /** Lookups sent to the database: tests read it. */
  lookups = 0;

  /** Owners held, ended or not: tests read it. */
  get size(): number {
    return this.#entries.size;
  }

  /** The owner of a token: from the cache while its entry lives, else by `lookup`, then cached if found. */
  async find(hash: TokenHash, lookup: () => Promise<FoundToken | undefined>): Promise<TokenOwner | undefined> {
    const entry = this.#entries.get(hash);
    if (entry !== undefined) {
      if (performance.now() < entry.until) return entry.owner;
      this.#entries.delete(hash);
    }
    const generation = this.#generation;
    const sentAt = performance.now();
    this.lookups++;
    const found = await lookup();
    // An unknown token is never cached: guesses cannot fill memory, and a token created meanwhile is found at once.
    if (found !== undefined && generation === this.#generation) {
      this.#entries.delete(hash); // set again below, as the newest
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
      // Timed from when the lookup was sent (the database read its clock after): ends at, or a round trip before, the expiry.
      this.#entries.set(hash, { owner: found.owner, until: sentAt + Math.min(ENTRY_MS, found.expiresInMs ?? ENTRY_MS) });
    }
    return found?.owner;
  }

  /** This instance revoked a token: forgotten at once, also by a lookup in flight (other instances within ENTRY_MS). */
  forgetTokenId(tokenId: number): void {
    this.#generation++;
    for (const [hash, entry] of this.#entries) if (entry.owner.tokenId === tokenId) this.#entries.delete(hash);
  }
}
