// Token owners cached in one instance, kept true for every instance by LISTEN/NOTIFY (migration 4's trigger notifies
// every change to a token in the changing transaction, the CLI's too): a revoked, expired, replaced or new token is
// refused or found by each instance within 1 s, whatever fails (DECISIONS.md, "Several instances"; docs/deploy.md).
// Why: PostgreSQL sends a listener the notifications pending before it answers a query, so an answered heartbeat sent
// at S proves every change committed before S is applied here. The cache is read only while such an S is less than
// LIVE_MS (< 1 s) old, and any gap in the connection empties it: notifications sent meanwhile are lost.
import type pg from 'pg';
import type { TokenHash, TokenOwner } from '../plant-store.js';

/** The channel migration 4's trigger notifies: the changed token's hash (base64), or '*' for all. */
const TOKENS_CHANNEL = 'plant_store_tokens';
const HEARTBEAT_MS = 200;
/** The cache is read only while a heartbeat sent within this long has been answered. */
const LIVE_MS = 600;
/** A heartbeat unanswered this long means a dead connection: it is dropped and opened again. */
const HEARTBEAT_TIMEOUT_MS = 2000;
/** Entries are read again after this long anyway, which also bounds the map to the tokens in recent use. */
const ENTRY_MS = 60_000;
const MAX_ENTRIES = 10_000;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 2000;

/** What the database says about a token: its owner, and how long until it expires by its clock (null: never). */
interface FoundToken {
  owner: TokenOwner;
  expiresInMs: number | null;
}

export class TokenCache {
  /** Each owner with the performance.now() after which it is not used. */
  readonly #entries = new Map<TokenHash, { owner: TokenOwner; until: number }>();
  /** Moves at every notification and every change of connection: a lookup that saw it move is not cached. */
  #epoch = 0;
  /** When the last answered heartbeat (or the LISTEN) was sent; -Infinity: not listening. */
  #confirmedAt = Number.NEGATIVE_INFINITY;
  #client: pg.Client | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #heartbeatSentAt: number | undefined;
  #reconnect: NodeJS.Timeout | undefined;
  #reconnectMs = RECONNECT_MIN_MS;
  #started = false;
  #closed = false;
  /** Gaps met and lookups sent to the database: tests read them. */
  gaps = 0;
  lookups = 0;

  /** `connect`: a new, unconnected client of its own: a pooled connection is handed to requests, and closed by the pool. */
  constructor(private readonly connect: () => pg.Client) {}

  /** Whether cached answers may be used now. */
  get listening(): boolean {
    return performance.now() - this.#confirmedAt < LIVE_MS;
  }

  /** The owner of a token: from the cache when it may be trusted, else by `lookup`, then cached. */
  async find(hash: TokenHash, lookup: () => Promise<FoundToken | undefined>): Promise<TokenOwner | undefined> {
    if (!this.#started) {
      this.#started = true; // at the first lookup: a CLI run that never authenticates never listens
      void this.#listen();
    }
    const entry = this.listening ? this.#entries.get(hash) : undefined;
    if (entry !== undefined) {
      if (performance.now() < entry.until) return entry.owner;
      this.#entries.delete(hash);
    }
    const epoch = this.#epoch;
    const sentAt = performance.now();
    this.lookups++;
    const found = await lookup();
    if (found !== undefined && epoch === this.#epoch && this.listening && !this.#closed) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!); // the oldest
      // Timed from when the lookup was sent (the database read its clock after): ends at, or a round trip before, the expiry.
      this.#entries.set(hash, { owner: found.owner, until: sentAt + Math.min(ENTRY_MS, found.expiresInMs ?? ENTRY_MS) });
    }
    return found?.owner;
  }

  /** This instance revoked a token: forgotten at once, before its own notification comes back. */
  forgetTokenId(tokenId: number): void {
    this.#epoch++;
    for (const [hash, entry] of this.#entries) if (entry.owner.tokenId === tokenId) this.#entries.delete(hash);
  }

  close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnect);
    return this.#gap(this.#client);
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    const client = this.connect();
    this.#client = client;
    client.on('error', () => void this.#gap(client));
    client.on('end', () => void this.#gap(client));
    client.on('notification', ({ channel, payload }) => {
      if (channel !== TOKENS_CHANNEL) return;
      this.#epoch++;
      if (payload === '*' || payload === undefined) this.#entries.clear();
      else this.#entries.delete(payload);
    });
    try {
      await client.connect();
      const sentAt = performance.now();
      await client.query(`LISTEN ${TOKENS_CHANNEL}`);
      if (this.#client !== client) return; // a gap meanwhile
      this.#epoch++;
      this.#confirmedAt = sentAt;
      this.#reconnectMs = RECONNECT_MIN_MS;
      this.#heartbeat = setInterval(() => this.#beat(client), HEARTBEAT_MS).unref();
    } catch {
      void this.#gap(client);
    }
  }

  #beat(client: pg.Client): void {
    const now = performance.now();
    if (this.#heartbeatSentAt !== undefined) {
      if (now - this.#heartbeatSentAt > HEARTBEAT_TIMEOUT_MS) void this.#gap(client);
      return;
    }
    this.#heartbeatSentAt = now;
    client.query('SELECT 1').then(
      () => {
        if (this.#client !== client) return;
        this.#confirmedAt = now;
        this.#heartbeatSentAt = undefined;
      },
      () => void this.#gap(client),
    );
  }

  /** The connection is gone or not to be trusted: nothing cached is, either. Opens another, after a pause. */
  #gap(client: pg.Client | undefined): Promise<void> {
    if (client === undefined || this.#client !== client) return Promise.resolve();
    this.#client = undefined;
    this.gaps++;
    this.#confirmedAt = Number.NEGATIVE_INFINITY;
    this.#epoch++;
    this.#entries.clear();
    clearInterval(this.#heartbeat);
    this.#heartbeatSentAt = undefined;
    const ended = client.end().catch(() => undefined);
    if (!this.#closed) {
      this.#reconnect = setTimeout(() => void this.#listen(), this.#reconnectMs).unref();
      this.#reconnectMs = Math.min(RECONNECT_MAX_MS, this.#reconnectMs * 2);
    }
    return ended;
  }
}
