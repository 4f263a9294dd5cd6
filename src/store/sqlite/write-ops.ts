// The store's writes as data: what the request thread sends its writer thread (writer-thread.ts),
// and the statements the writer runs for each, inside its group commit's transaction.
import type { AddResult } from '../plant-store.js';
import type { SqliteDatabase } from './database.js';

export type WriteOp =
  | { kind: 'addPlant'; owner: string; id: bigint; name: string; tag: string | null }
  | { kind: 'deletePlant'; owner: string; id: bigint }
  | { kind: 'addToken'; user: string; hash: Uint8Array; expiresAt: string | null }
  | { kind: 'revokeToken'; id: number }
  /** Token id and time of its last use (ISO 8601). */
  | { kind: 'noteUses'; uses: Array<[id: number, at: string]> };

/** What each write answers. */
export interface WriteResults {
  addPlant: AddResult;
  deletePlant: boolean;
  addToken: number;
  revokeToken: boolean;
  noteUses: undefined;
}

export type WriteResult = WriteResults[keyof WriteResults];

/** Prepares the statements once; the function it returns runs one write: one writing statement each, except noteUses. */
export function prepareWrites(db: SqliteDatabase): (op: WriteOp) => WriteResult {
  const sql = {
    insert: db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING'),
    findOne: db.prepare('SELECT name, tag FROM plants WHERE owner = ? AND id = ?'),
    delete: db.prepare('DELETE FROM plants WHERE owner = ? AND id = ?'),
    addToken: db.prepare("INSERT INTO tokens (user, hash, created_at, expires_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ'), ?)"),
    // Text comparison is time order: every time here has the same ISO form (strftime's %f and toISOString agree).
    noteUse: db.prepare('UPDATE tokens SET last_used_at = @at WHERE id = @id AND (last_used_at IS NULL OR last_used_at < @at)'),
    revokeToken: db.prepare("UPDATE tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%fZ') WHERE id = ? AND revoked_at IS NULL"),
  };
  return (op) => {
    switch (op.kind) {
      case 'addPlant': {
        if (sql.insert.run(op.owner, op.id, op.name, op.tag).changes === 1) return 'created';
        const existing = sql.findOne.get(op.owner, op.id) as { name: string; tag: string | null };
        return existing.name === op.name && existing.tag === op.tag ? 'unchanged' : 'conflict';
      }
      case 'deletePlant':
        return sql.delete.run(op.owner, op.id).changes === 1;
      case 'addToken':
        // A Buffer arrives from the other thread as a plain Uint8Array, which better-sqlite3 does not bind.
        return Number(sql.addToken.run(op.user, Buffer.from(op.hash.buffer, op.hash.byteOffset, op.hash.byteLength), op.expiresAt).lastInsertRowid);
      case 'revokeToken':
        return sql.revokeToken.run(op.id).changes === 1;
      case 'noteUses':
        for (const [id, at] of op.uses) sql.noteUse.run({ id, at });
        return undefined;
    }
  };
}
