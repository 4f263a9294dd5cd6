// Each token's last use, as both stores record it: noted in memory on the request path (no await,
// no statement), written at most once a minute per token, in batches, after the request.

/** A token's use is written again only once this long has passed since its last written use. */
export const USE_RESOLUTION_MS = 60_000;
/** Uses noted within this long of the first one share one write. */
const WRITE_DELAY_MS = 1000;

export class TokenUses {
  /** Token id -> time of its last use sent to be written, kept for a minute: a newer use of it is not written. */
  readonly #written = new Map<number, number>();
  /** Uses waiting for the next write. */
  #pending = new Map<number, number>();
  #timer: NodeJS.Timeout | undefined;
  /** The writes so far, one after the other: close() waits for the last. */
  #writing: Promise<void> = Promise.resolve();
  #closed = false;
  readonly #delayMs: number;
  readonly #now: () => number;

  /**
   * `write`: writes a batch, token id -> time of its use (ms since the epoch), only ever moving a last use forward.
   * `now`: the clock uses are timed by; tests of the once-a-minute rule pass their own.
   */
  constructor(
    private readonly write: (uses: ReadonlyMap<number, number>) => Promise<void>,
    { delayMs = WRITE_DELAY_MS, now = Date.now }: { delayMs?: number; now?: () => number } = {},
  ) {
    this.#delayMs = delayMs;
    this.#now = now;
  }

  /** On the request path: a map lookup, and at most once a minute per token a timer for the write. */
  used(tokenId: number): void {
    const now = this.#now();
    const last = this.#written.get(tokenId);
    if (this.#closed || (last !== undefined && now - last < USE_RESOLUTION_MS)) return;
    this.#written.set(tokenId, now);
    this.#pending.set(tokenId, now);
    // unref: a pending write never keeps a process alive; close() writes what is left.
    this.#timer ??= setTimeout(() => void this.flush(), this.#delayMs).unref();
  }

  /** Writes the pending uses now; resolves once every write so far has ended. A failed write is not retried: the token's next use is written instead. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending;
    if (batch.size === 0) return this.#writing;
    this.#pending = new Map();
    // Uses older than the resolution no longer hold anything back: this bounds the map by the tokens used in the last minute.
    const now = this.#now();
    for (const [id, at] of this.#written) if (now - at >= USE_RESOLUTION_MS) this.#written.delete(id);
    this.#writing = this.#writing.then(() =>
      this.write(batch).catch(() => {
        // Not written (the database was busy or away): forget the use, so the next one is written.
        for (const [id, at] of batch) if (this.#written.get(id) === at) this.#written.delete(id);
      }),
    );
    return this.#writing;
  }

  /** Writes what is pending and notes nothing more: for the store's close(). */
  close(): Promise<void> {
    const last = this.flush();
    this.#closed = true;
    return last;
  }
}
