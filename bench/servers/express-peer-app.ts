// The Express peer, built the way most teams would: Express 5, express-openapi-validator on requests AND
// responses, better-sqlite3 (one commit per request, synchronous=NORMAL), exact int64 ids (exact-id.ts).
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { bodyId, int64 } from './exact-id.js';

const apiSpec = fileURLToPath(new URL('../../../openapi.yaml', import.meta.url));

type Row = { id: bigint; name: string; tag: string | null };

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The peer on the SQLite file at `path`, and a function that closes its database. */
export function buildPeer(path: string, apiSpecPath = apiSpec): { app: Express; close: () => void } {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');

  const sql = {
    token: db.prepare('SELECT user FROM tokens WHERE hash = ? AND revoked_at IS NULL').pluck(),
    first: db.prepare('SELECT id, name, tag FROM plants WHERE owner = ? ORDER BY id LIMIT ?').safeIntegers(),
    after: db.prepare('SELECT id, name, tag FROM plants WHERE owner = ? AND id > ? ORDER BY id LIMIT ?').safeIntegers(),
    insert: db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING'),
    find: db.prepare('SELECT name, tag FROM plants WHERE owner = ? AND id = ?'),
    delete: db.prepare('DELETE FROM plants WHERE owner = ? AND id = ?'),
  };

  const plant = (row: { name: string; tag: string | null }) => (row.tag === null ? { name: row.name } : { name: row.name, tag: row.tag });
  const users = new WeakMap<Request, string>();
  const user = (req: Request) => users.get(req)!;
  /** Each JSON body as it arrived: the validator checks the parsed one, the id is taken exactly from this. */
  const rawBodies = new WeakMap<object, Buffer>();
  const cursorOf = (id: bigint) => Buffer.from(`v1:${id}`).toString('base64url');

  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '16kb', verify: (req, _res, buffer) => void rawBodies.set(req, buffer) }));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: apiSpecPath,
      validateRequests: true,
      validateResponses: true,
      validateSecurity: {
        handlers: {
          bearerAuth: (req) => {
            const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '');
            const owner = match && (sql.token.get(createHash('sha256').update(match[1]!).digest()) as string | undefined);
            // A rejection, as an async handler would give: the validator answers it with 401.
            if (!owner) return Promise.reject(new HttpError(401, 'The bearer token is not valid.'));
            users.set(req, owner);
            return Promise.resolve(true);
          },
        },
      },
    }),
  );

  app.get('/plants', (req, res) => {
    const limit = Number(req.query.limit ?? 100);
    let rows: Row[];
    if (typeof req.query.cursor === 'string') {
      const after = int64(/^v1:(.*)$/.exec(Buffer.from(req.query.cursor, 'base64url').toString('latin1'))?.[1] ?? '');
      if (after === undefined) throw new HttpError(400, 'The cursor is not valid.');
      rows = sql.after.all(user(req), after, limit + 1) as Row[];
    } else {
      rows = sql.first.all(user(req), limit + 1) as Row[];
    }
    if (rows.length > limit) {
      rows.pop();
      res.set('link', `</plants?limit=${limit}&cursor=${cursorOf(rows.at(-1)!.id)}>; rel="next"`);
    }
    res.json(rows.map(plant));
  });

  app.post('/plants', (req, res) => {
    const { name, tag } = req.body as { name: string; tag?: string };
    const id = bodyId(rawBodies.get(req)!.toString('utf8'));
    if (id === undefined) throw new HttpError(400, 'The id must be an integer from -9223372036854775808 to 9223372036854775807.');
    if (sql.insert.run(user(req), id, name, tag ?? null).changes === 0) {
      const existing = sql.find.get(user(req), id) as Row;
      if (existing.name !== name || existing.tag !== (tag ?? null)) throw new HttpError(409, `A plant with id ${id} already exists.`);
    }
    res.json(plant({ name, tag: tag ?? null }));
  });

  app.delete('/plants/:id', (req, res) => {
    // From the path itself: the validator has replaced req.params.id with a (rounded) number.
    const id = int64(decodeURIComponent(req.path.slice('/plants/'.length)));
    if (id === undefined) throw new HttpError(400, 'The id must be a decimal int64.');
    if (sql.delete.run(user(req), id).changes === 0) throw new HttpError(404, `You have no plant with id ${id}.`);
    res.status(204).end();
  });

  app.use((error: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    const status = error.status ?? 500;
    res.status(status).json({ error: status, message: status === 500 ? 'Something went wrong.' : error.message });
  });

  return { app, close: () => db.close() };
}
