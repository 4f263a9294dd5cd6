// Reference (b), the peer built the way most teams would: Express 5, express-openapi-validator
// checking requests AND responses against the same openapi.yaml, better-sqlite3 (WAL,
// synchronous=NORMAL, one commit per request) and the same token check (SHA-256 hash lookup).
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';

const apiSpec = fileURLToPath(new URL('../../../openapi.yaml', import.meta.url));
const db = new Database(process.env.DATABASE_PATH!);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');

const sql = {
  token: db.prepare('SELECT user FROM tokens WHERE hash = ? AND revoked_at IS NULL').pluck(),
  page: db.prepare('SELECT id, name, tag FROM plants WHERE owner = ? AND id > ? ORDER BY id LIMIT ?'),
  insert: db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING'),
  find: db.prepare('SELECT name, tag FROM plants WHERE owner = ? AND id = ?'),
  delete: db.prepare('DELETE FROM plants WHERE owner = ? AND id = ?'),
};

type Row = { id: number; name: string; tag: string | null };
const plant = (row: { name: string; tag: string | null }) => (row.tag === null ? { name: row.name } : { name: row.name, tag: row.tag });
const users = new WeakMap<Request, string>();
const user = (req: Request) => users.get(req)!;

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const app = express();
app.disable('x-powered-by');
app.use(express.json({ limit: '16kb' }));
app.use(
  OpenApiValidator.middleware({
    apiSpec,
    validateRequests: true,
    validateResponses: true,
    validateSecurity: {
      handlers: {
        bearerAuth: async (req) => {
          const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '');
          const owner = match && (sql.token.get(createHash('sha256').update(match[1]!).digest()) as string | undefined);
          if (!owner) throw new HttpError(401, 'The bearer token is not valid.');
          users.set(req as Request, owner);
          return true;
        },
      },
    },
  }),
);

app.get('/plants', (req, res) => {
  const limit = Number(req.query.limit ?? 100);
  const cursor = typeof req.query.cursor === 'string' ? Number(/^v1:(-?\d+)$/.exec(Buffer.from(req.query.cursor, 'base64url').toString())?.[1]) : Number.MIN_SAFE_INTEGER;
  if (Number.isNaN(cursor)) throw new HttpError(400, 'The cursor is not valid.');
  const rows = sql.page.all(user(req), cursor, limit + 1) as Row[];
  if (rows.length > limit) {
    rows.pop();
    res.set('link', `</plants?limit=${limit}&cursor=${Buffer.from(`v1:${rows.at(-1)!.id}`).toString('base64url')}>; rel="next"`);
  }
  res.json(rows.map(plant));
});

app.post('/plants', (req, res) => {
  const { id, name, tag } = req.body as { id: number; name: string; tag?: string };
  if (sql.insert.run(user(req), id, name, tag ?? null).changes === 0) {
    const existing = sql.find.get(user(req), id) as Row;
    if (existing.name !== name || existing.tag !== (tag ?? null)) throw new HttpError(409, `A plant with id ${id} already exists.`);
  }
  res.json(plant({ name, tag: tag ?? null }));
});

app.delete('/plants/:id', (req, res) => {
  if (sql.delete.run(user(req), Number(req.params.id)).changes === 0) throw new HttpError(404, `You have no plant with id ${req.params.id}.`);
  res.status(204).end();
});

app.use((error: Error & { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
  const status = error.status ?? 500;
  res.status(status).json({ error: status, message: status === 500 ? 'Something went wrong.' : error.message });
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1');
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => server.close(() => process.exit(0)).closeAllConnections());
