// The PostgreSQL side of `plant-store copy`: a database's rows in one REPEATABLE READ snapshot (a source), and an
// empty database filled in one transaction that also moves the tokens' identity sequence past the largest id (a target).
import pg from 'pg';
import { COPY_BATCH, type CopyTarget, type PlantRecord, type Rows, type TokenRecord } from '../copy-rows.js';
import { migrate, types } from './database.js';
import { ISO_UTC } from './postgres-store.js';

const time = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', ${ISO_UTC})`;
const PLANTS = 'SELECT owner, id, name, tag FROM plants';
const TOKENS = `SELECT id, user_name AS "user", hash, ${time('created_at')} AS "createdAt", ${time('expires_at')} AS "expiresAt",
                       ${time('revoked_at')} AS "revokedAt", ${time('last_used_at')} AS "lastUsedAt" FROM tokens`;

/** Keyset pages of the client's transaction, in the order SQLite's keys have too (owner by bytes: the column is COLLATE "C"). */
function rowsOf(client: pg.Client): Rows {
  return {
    plants: async function* () {
      let last: PlantRecord | undefined;
      for (;;) {
        const { rows } = await (last === undefined
          ? client.query<PlantRecord>(`${PLANTS} ORDER BY owner, id LIMIT $1`, [COPY_BATCH])
          : client.query<PlantRecord>(`${PLANTS} WHERE (owner, id) > ($1, $2) ORDER BY owner, id LIMIT $3`, [
              last.owner,
              String(last.id),
              COPY_BATCH,
            ]));
        if (rows.length > 0) yield rows;
        if (rows.length < COPY_BATCH) return;
        last = rows.at(-1);
      }
    },
    tokens: async function* () {
      let last = 0n;
      for (;;) {
        const { rows } = await client.query<TokenRecord>(`${TOKENS} WHERE id > $1 ORDER BY id LIMIT $2`, [String(last), COPY_BATCH]);
        if (rows.length > 0) yield rows;
        if (rows.length < COPY_BATCH) return;
        last = rows.at(-1)!.id;
      }
    },
  };
}

/** A client with no statement bound: a copy of a large database runs as long as it takes. */
async function connect(url: string, timeoutMs: number): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, types, connectionTimeoutMillis: timeoutMs, application_name: 'plant-store copy' });
  client.on('error', () => undefined); // a lost connection also fails the query in progress, which reports it
  await client.connect();
  return client;
}

export interface PostgresSnapshot {
  rows: Rows;
  close(): Promise<void>;
}

/** The database's rows as of now, whatever is written meanwhile; migrated first, as every command does. */
export async function postgresSnapshot(url: string, timeoutMs: number): Promise<PostgresSnapshot> {
  await migrate({ url, timeoutMs });
  const client = await connect(url, timeoutMs);
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  return {
    rows: rowsOf(client),
    close: async () => {
      await client.query('COMMIT').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

/**
 * The database at `url`, migrated to the latest schema, then one transaction that holds its tables locked: nothing
 * another process writes can slip in, and a copy that fails leaves it as empty as it was.
 */
export async function postgresTarget(url: string, timeoutMs: number): Promise<CopyTarget> {
  await migrate({ url, timeoutMs });
  const client = await connect(url, timeoutMs);
  try {
    await client.query('BEGIN');
    await client.query('LOCK TABLE plants, tokens IN EXCLUSIVE MODE');
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  return {
    ...rowsOf(client),
    counts: async () => {
      const { rows } = await client.query<{ plants: bigint; tokens: bigint }>(
        'SELECT (SELECT count(*) FROM plants) AS plants, (SELECT count(*) FROM tokens) AS tokens',
      );
      return { plants: Number(rows[0]!.plants), tokens: Number(rows[0]!.tokens) };
    },
    addPlants: async (batch) => {
      await client.query(
        'INSERT INTO plants (owner, id, name, tag) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[])',
        [
          batch.map((plant) => plant.owner),
          batch.map((plant) => String(plant.id)),
          batch.map((plant) => plant.name),
          batch.map((plant) => plant.tag),
        ],
      );
    },
    // OVERRIDING SYSTEM VALUE: the ids are kept (the column is GENERATED ALWAYS); the sequence is moved at commit.
    addTokens: async (batch) => {
      await client.query(
        `INSERT INTO tokens (id, user_name, hash, created_at, expires_at, revoked_at, last_used_at) OVERRIDING SYSTEM VALUE
           SELECT * FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::timestamptz[], $5::timestamptz[], $6::timestamptz[], $7::timestamptz[])`,
        [
          batch.map((token) => String(token.id)),
          batch.map((token) => token.user),
          batch.map((token) => token.hash),
          batch.map((token) => token.createdAt),
          batch.map((token) => token.expiresAt),
          batch.map((token) => token.revokedAt),
          batch.map((token) => token.lastUsedAt),
        ],
      );
    },
    commit: async () => {
      // The next token gets the id after the largest copied: without this, `token create` would collide with tokens_pkey.
      await client.query(`SELECT setval(pg_get_serial_sequence('tokens', 'id'), coalesce(max(id), 0) + 1, false) FROM tokens`);
      await client.query('COMMIT');
      await client.end();
    },
    abandon: async () => {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}
