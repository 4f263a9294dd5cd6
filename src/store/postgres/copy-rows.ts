// The PostgreSQL side of `plant-store copy`: a database's rows in one REPEATABLE READ snapshot (a source), and an
// empty database filled in one transaction that also moves the tokens' identity sequence past the largest id (a target).
import type pg from 'pg';
import { COPY_BATCH, type CopySource, type CopyTarget, type Row, type Table } from '../copy-rows.js';
import { migrate, newClient } from './database.js';
import { utcText } from './postgres-store.js';

/** In the order SQLite's keys have too (owner by bytes: the column is COLLATE "C"). */
const SELECT: Record<Table, string> = {
  plants: 'SELECT owner, id, name, tag FROM plants ORDER BY owner, id',
  tokens: `SELECT id, user_name, hash, ${utcText('created_at')}, ${utcText('expires_at')},
                  ${utcText('revoked_at')}, ${utcText('last_used_at')} FROM tokens ORDER BY id`,
};
// A batch goes as one array per column. OVERRIDING SYSTEM VALUE: the ids are kept (the column is GENERATED ALWAYS).
const INSERT: Record<Table, string> = {
  plants: 'INSERT INTO plants (owner, id, name, tag) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[])',
  tokens: `INSERT INTO tokens (id, user_name, hash, created_at, expires_at, revoked_at, last_used_at) OVERRIDING SYSTEM VALUE
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::timestamptz[], $5::timestamptz[], $6::timestamptz[], $7::timestamptz[])`,
};

/** The database at `url`, migrated first as every command does, in the transaction `statements` begin. */
async function open(url: string, timeoutMs: number, statements: string[]): Promise<pg.Client> {
  await migrate({ url, timeoutMs });
  // No statement timeout: a copy of a large database runs as long as it takes.
  const client = newClient({ url, timeoutMs }, { application_name: 'plant-store copy' });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }
  return client;
}

/** Batches of the transaction's snapshot, through a cursor. */
function reader(client: pg.Client): CopySource['read'] {
  return async function* (table) {
    await client.query(`DECLARE copy_rows NO SCROLL CURSOR FOR ${SELECT[table]}`);
    for (;;) {
      const { rows } = await client.query<Row>({ text: `FETCH ${COPY_BATCH} FROM copy_rows`, rowMode: 'array' });
      if (rows.length > 0) yield rows;
      if (rows.length < COPY_BATCH) break;
    }
    await client.query('CLOSE copy_rows');
  };
}

async function end(client: pg.Client, statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
  await client.query(statement).catch(() => undefined);
  await client.end().catch(() => undefined);
}

/** The database's rows as of now, whatever is written meanwhile. */
export async function postgresSource(url: string, timeoutMs: number): Promise<CopySource> {
  const client = await open(url, timeoutMs, ['BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY']);
  return { read: reader(client), close: () => end(client, 'COMMIT') };
}

/** One transaction that holds the tables locked: nothing another process writes can slip in, and a copy that fails leaves them as empty as they were. */
export async function postgresTarget(url: string, timeoutMs: number): Promise<CopyTarget> {
  const client = await open(url, timeoutMs, ['BEGIN', 'LOCK TABLE plants, tokens IN EXCLUSIVE MODE']);
  return {
    read: reader(client),
    count: async (table) => Number((await client.query<{ count: bigint }>(`SELECT count(*) FROM ${table}`)).rows[0]!.count),
    write: async (table, rows) => {
      await client.query(
        INSERT[table],
        rows[0]!.map((_, column) => rows.map((row) => row[column])),
      );
    },
    commit: async () => {
      // The next token gets the id after the largest copied: without this, `token create` would collide with tokens_pkey.
      await client.query(`SELECT setval(pg_get_serial_sequence('tokens', 'id'), coalesce(max(id), 0) + 1, false) FROM tokens`);
      await client.query('COMMIT');
      await client.end();
    },
    abandon: () => end(client, 'ROLLBACK'),
  };
}
