// The PostgreSQL store: plain SQL through a pool, named statements (prepared once per connection); the creates of one turn share a statement, each delete has its own.
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { queryTimes, type QueryTime } from '../../channels.js';
import { rowsToRead, toPage, type PlantPage, type PlantRow } from '../../pagination/page.js';
import type { AddResult, PlantStore, Readiness, Store, StoredPlant, StoreLog, TokenHash, TokenInfo, TokenOwner } from '../plant-store.js';
import { TokenUses } from '../token-uses.js';
import { migrate, openPool, type PoolSettings } from './database.js';
import { TokenCache } from './token-cache.js';

/** A time column as ISO 8601 UTC text to the millisecond, the form SQLite stores. */
export const utcText = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Insert, or say why not, in one statement that cannot miss a racing write, for every create that
 * arrived in one turn (rows in, each row's result out). ON CONFLICT DO UPDATE works on the newest
 * committed row, not the statement's snapshot, and PostgreSQL settles a row that a concurrent
 * transaction inserts or deletes meanwhile itself (it waits, then inserts or takes the row): so there
 * is always an answer, where DO NOTHING and a SELECT of the snapshot could find no row at all when a
 * concurrent create and delete raced it. The update changes nothing and happens only for identical
 * content (a retried create); a conflicting row is only locked, and no row comes back: that plant
 * exists with other content. `xmax = 0` tells a row this statement inserted from one it took. Rows go
 * in key order, so two statements with plants in common lock them in the same order: no deadlock.
 */
const ADD_PLANTS = `
  INSERT INTO plants (owner, id, name, tag)
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) AS p(owner, id, name, tag) ORDER BY owner COLLATE "C", id
  ON CONFLICT (owner, id) DO UPDATE SET name = EXCLUDED.name
    WHERE plants.name = EXCLUDED.name AND plants.tag IS NOT DISTINCT FROM EXCLUDED.tag
  RETURNING owner, id::text, CASE WHEN xmax = 0 THEN 'created' ELSE 'unchanged' END AS result`;

const statements = {
  addPlants: ADD_PLANTS,
  firstPage: 'SELECT id, name, tag FROM plants WHERE owner = $1 ORDER BY id LIMIT $2',
  nextPage: 'SELECT id, name, tag FROM plants WHERE owner = $1 AND id > $2 ORDER BY id LIMIT $3',
  deletePlant: 'DELETE FROM plants WHERE owner = $1 AND id = $2',
  // Expiry by the database's clock, the one every instance shares; the time left by that clock bounds the cached entry.
  findToken: `SELECT id, user_name, (extract(epoch FROM expires_at - now()) * 1000)::float8 AS expires_in_ms
                FROM tokens WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
  // One statement, so one transaction: all are added or none.
  addTokens:
    'INSERT INTO tokens (user_name, hash, expires_at) SELECT $1::text, hash, $3::timestamptz FROM unnest($2::bytea[]) AS h(hash) RETURNING id',
  // Every token, or only one user's (null: any).
  listTokens: `SELECT id, user_name AS "user", ${utcText('created_at')} AS "createdAt", ${utcText('expires_at')} AS "expiresAt",
                      coalesce(expires_at <= now(), false) AS expired, ${utcText('last_used_at')} AS "lastUsedAt",
                      ${utcText('revoked_at')} AS "revokedAt"
                 FROM tokens WHERE user_name = coalesce($1::text, user_name) ORDER BY id`,
  // One statement for a whole batch of uses; a use never moves a last use back (instances write their own).
  noteUses: `UPDATE tokens SET last_used_at = uses.at
               FROM unnest($1::bigint[], $2::timestamptz[]) AS uses(id, at)
              WHERE tokens.id = uses.id AND (tokens.last_used_at IS NULL OR tokens.last_used_at < uses.at)`,
  revokeToken: 'UPDATE tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL',
  revokeUserTokens: `UPDATE tokens SET revoked_at = now()
                      WHERE user_name = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) RETURNING id`,
  countTokens: 'SELECT count(*) AS count FROM tokens',
  ping: 'SELECT 1 FROM plants LIMIT 1',
} as const;

type StatementName = keyof typeof statements;

/** A create waiting for the end of its turn, with what answers its request. */
interface Create {
  owner: string;
  plant: StoredPlant;
  resolve(result: AddResult): void;
  reject(error: unknown): void;
}

export class PostgresStore implements Store, PlantStore {
  readonly kind = 'postgres';
  readonly #uses = new TokenUses(async (uses) => {
    await this.#run('noteUses', [[...uses.keys()], [...uses.values()].map((at) => new Date(at).toISOString())]);
  });
  /** The reads of a page not sent yet, by owner, cursor and limit: requests for one page in one turn share them. */
  readonly #unsent = new Map<string, Promise<PlantPage>>();
  /** The creates of this turn, not sent yet. */
  readonly #unsentCreates: Create[] = [];
  #closing: Promise<void> | undefined;
  /** Token owners, so that a request makes one round trip in the common case: the page, or the write. */
  readonly tokens = new TokenCache();

  private constructor(readonly pool: pg.Pool) {}

  /** Opens the pool and applies pending migrations before the store is used. */
  static async open(settings: PoolSettings, log?: StoreLog): Promise<PostgresStore> {
    const durable = await migrate(settings, undefined, log);
    return new PostgresStore(openPool(settings, durable));
  }

  /**
   * Timed while metrics listen: the database's share of a request's time, told apart from the process's. `rowMode`
   * 'array': rows as arrays, the shape pagination/page.ts's toPage reads.
   */
  async #run<Row>(statement: StatementName, values: unknown[], rowMode?: 'array'): Promise<pg.QueryResult<Row & pg.QueryResultRow>> {
    const query = () =>
      this.pool.query<Row & pg.QueryResultRow>({
        name: `plant-store-${statement}`,
        text: statements[statement],
        values,
        rowMode,
      } as pg.QueryConfig);
    if (!queryTimes.hasSubscribers) return query();
    const started = performance.now();
    let outcome: QueryTime['outcome'] = 'error';
    try {
      const result = await query();
      outcome = 'ok';
      return result;
    } finally {
      queryTimes.publish({ statement, outcome, seconds: (performance.now() - started) / 1000 } satisfies QueryTime);
    }
  }

  /** Every request shares the pool: nothing is kept between reads, so there is nothing to check once per request. */
  forRequest(): PlantStore {
    return this;
  }

  /**
   * The creates that arrive in one turn of the event loop are sent together at its end (setImmediate),
   * one statement and one commit for all, as SQLite's group commit shares one: each is answered after
   * that commit. A statement changes a row once at most, so a second create of one plant in the turn
   * goes in a statement of its own. Measured by the `postgres-post` scenario (docs/benchmarks.md).
   */
  addPlant(owner: string, plant: StoredPlant): Promise<AddResult> {
    return new Promise((resolve, reject) => {
      if (this.#unsentCreates.push({ owner, plant, resolve, reject }) > 1) return;
      setImmediate(() => {
        const rounds: Array<Map<string, Create>> = [];
        for (const create of this.#unsentCreates.splice(0)) {
          const key = `${create.plant.id} ${create.owner}`;
          let round = rounds.find((plants) => !plants.has(key));
          if (round === undefined) rounds.push((round = new Map<string, Create>()));
          round.set(key, create);
        }
        for (const round of rounds) void this.#insert(round);
      });
    });
  }

  async #insert(creates: Map<string, Create>): Promise<void> {
    const batch = [...creates.values()];
    try {
      const columns = [
        batch.map((c) => c.owner),
        batch.map((c) => c.plant.id),
        batch.map((c) => c.plant.name),
        batch.map((c) => c.plant.tag ?? null),
      ];
      const { rows } = await this.#run<{ owner: string; id: string; result: AddResult }>('addPlants', columns);
      const results = new Map(rows.map((row) => [`${row.id} ${row.owner}`, row.result]));
      for (const [key, create] of creates) create.resolve(results.get(key) ?? 'conflict');
    } catch (error) {
      // A value PostgreSQL refuses (SQLSTATE class 22 or 23) fails only its own create: each is tried again alone.
      const refused = /^2[23]/.test(String((error as { code?: unknown }).code));
      if (refused && batch.length > 1) for (const [key, create] of creates) void this.#insert(new Map([[key, create]]));
      else for (const create of batch) create.reject(error);
    }
  }

  /**
   * Requests for the same page that arrive in one turn of the event loop share one query, sent at the
   * end of the turn (setImmediate), after every one of them arrived: its snapshot, taken later still,
   * holds every write acknowledged before any of them arrived, so each request's answer stays
   * linearizable. A request that arrives once the query is sent waits for the next one. Measured by the
   * `postgres-get-first-page` scenario (50 connections, one user; docs/benchmarks.md).
   */
  listPlants(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage> {
    const key = `${limit} ${after ?? ''} ${owner}`;
    let page = this.#unsent.get(key);
    if (page === undefined) {
      page = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.#unsent.delete(key);
        return this.#readPage(owner, after, limit);
      });
      this.#unsent.set(key, page);
    }
    return page;
  }

  async #readPage(owner: string, after: bigint | undefined, limit: number): Promise<PlantPage> {
    const { rows } =
      after === undefined
        ? await this.#run<PlantRow>('firstPage', [owner, rowsToRead(limit)], 'array')
        : await this.#run<PlantRow>('nextPage', [owner, after, rowsToRead(limit)], 'array');
    return toPage(rows, limit);
  }

  async deletePlant(owner: string, id: bigint): Promise<boolean> {
    return (await this.#run('deletePlant', [owner, id])).rowCount === 1;
  }

  async findToken(hash: TokenHash): Promise<TokenOwner | undefined> {
    const owner = await this.tokens.find(hash, async () => {
      type Row = { id: bigint; user_name: string; expires_in_ms: number | null };
      const row = (await this.#run<Row>('findToken', [Buffer.from(hash, 'base64')])).rows[0];
      return row && { owner: { tokenId: Number(row.id), user: row.user_name }, expiresInMs: row.expires_in_ms };
    });
    if (owner !== undefined) this.#uses.used(owner.tokenId); // noted only: written later, in one statement for many tokens
    return owner;
  }

  async addTokens(user: string, hashes: readonly TokenHash[], expiresAt: Date | null = null): Promise<number[]> {
    const bytes = hashes.map((hash) => Buffer.from(hash, 'base64'));
    const { rows } = await this.#run<{ id: bigint }>('addTokens', [user, bytes, expiresAt?.toISOString() ?? null]);
    return rows.map((row) => Number(row.id)).sort((a, b) => a - b);
  }

  async listTokens(user?: string): Promise<TokenInfo[]> {
    type Row = Omit<TokenInfo, 'id'> & { id: bigint };
    const { rows } = await this.#run<Row>('listTokens', [user ?? null]);
    return rows.map((row) => ({ ...row, id: Number(row.id) }));
  }

  async revokeToken(id: number): Promise<boolean> {
    const revoked = (await this.#run('revokeToken', [id])).rowCount === 1;
    this.tokens.forgetTokenId(id); // other instances' entries end within 1 s (token-cache.ts)
    return revoked;
  }

  async revokeUserTokens(user: string): Promise<number> {
    const { rows } = await this.#run<{ id: bigint }>('revokeUserTokens', [user]);
    for (const row of rows) this.tokens.forgetTokenId(Number(row.id));
    return rows.length;
  }

  async countTokens(): Promise<number> {
    return Number((await this.#run<{ count: bigint }>('countTokens', [])).rows[0]!.count);
  }

  readiness(): Promise<Readiness> {
    return this.#run('ping', []).then(
      () => 'ready',
      () => 'unreachable',
    );
  }

  close(): Promise<void> {
    return (this.#closing ??= (async () => {
      await this.#uses.close();
      if (!this.pool.ending) await this.pool.end();
    })());
  }
}
