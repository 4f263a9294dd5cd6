// `plant-store copy`, over either store: every plant and token of a database into an empty one, committed only once the
// copy's tally (counts and a SHA-256 of the rows in order) equals the source's.
import { createHash } from 'node:crypto';

export const TABLES = ['plants', 'tokens'] as const;
export type Table = (typeof TABLES)[number];

/**
 * A row as its columns' values, in one form both stores read and write: plants (owner, id, name, tag), tokens (id, user,
 * hash, created, expires, revoked, last used); ids as bigint, the hash a Buffer, times as ISO 8601 UTC text to the
 * millisecond (the form both stores show, listTokens).
 */
export type Row = unknown[];

/** A database in one transaction: a source reads a snapshot, a target writes. */
export interface CopySource {
  /** The table's rows in batches, by their keys: plants by owner (byte order) then id, tokens by id. */
  read(table: Table): AsyncIterable<Row[]>;
  close(): Promise<void>;
}

export interface CopyTarget extends Pick<CopySource, 'read'> {
  /** The rows the table holds already: a copy goes only into an empty database. */
  count(table: Table): Promise<number>;
  /** Keeps every id; the target hands out the next token id after the largest (PostgreSQL's identity sequence is moved). */
  write(table: Table, rows: Row[]): Promise<void>;
  commit(): Promise<void>;
  /** Undoes everything; never throws. */
  abandon(): Promise<void>;
}

export interface Tally {
  plants: number;
  tokens: number;
  /** SHA-256 (hex) of one JSON array a line per row, in the order of read(). */
  plantsSha256: string;
  tokensSha256: string;
}

/** Rows read in batches of this many: a batch of plants at their largest (200-character names) is about 1 MB. */
export const COPY_BATCH = 5000;

/** A value as its row's line shows it: ids as decimal text, the hash as hex. */
function shown(value: unknown): unknown {
  if (typeof value === 'bigint') return String(value);
  if (Buffer.isBuffer(value)) return value.toString('hex');
  return value;
}

/** Counts and checksums of `side`'s rows; `each` is handed every batch as it is read. */
async function tally(side: Pick<CopySource, 'read'>, each?: (table: Table, rows: Row[]) => Promise<void>): Promise<Tally> {
  const result = {} as Tally;
  for (const table of TABLES) {
    const hash = createHash('sha256');
    let count = 0;
    for await (const rows of side.read(table)) {
      count += rows.length;
      hash.update(rows.map((row) => JSON.stringify(row.map(shown)) + '\n').join(''));
      await each?.(table, rows);
    }
    result[table] = count;
    result[`${table}Sha256`] = hash.digest('hex');
  }
  return result;
}

/** Copies `source` into `target`, and commits only once the target's rows, read back, tally with the source's. */
export async function copyRows(source: CopySource, target: CopyTarget, targetName: string): Promise<Tally> {
  try {
    const [plants, tokens] = [await target.count('plants'), await target.count('tokens')];
    if (plants > 0 || tokens > 0)
      throw new Error(
        `the target ${targetName} already holds ${plants} plants and ${tokens} tokens: copy only into an empty database; nothing was changed`,
      );
    const expected = await tally(source, (table, rows) => target.write(table, rows));
    const copied = await tally(target);
    for (const key of Object.keys(expected) as Array<keyof Tally>)
      if (copied[key] !== expected[key])
        throw new Error(
          `the copy does not match the source (${key}: ${String(expected[key])} in the source, ${String(copied[key])} in the copy); nothing was kept`,
        );
    await target.commit();
    return copied;
  } catch (error) {
    await target.abandon();
    throw error;
  }
}
