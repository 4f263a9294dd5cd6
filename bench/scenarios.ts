// The scenarios: who runs in each, what they are sent, what each server does per request, and the
// targets their figures are held to.
import { pagesAtRandomCursors } from './cursors.js';
import type { DataSet } from './data.js';
import { PLANTS_PER_USER } from './plant-content.js';
import { realisticMix } from './realistic-mix.js';
import type { Contestant, Scenario } from './scenario.js';
import type { ServerSpec } from './servers.js';

const FIRST_PAGE = '/plants?limit=20';

/** What the servers do per request, said once for the scenarios that share it. */
const DOES = {
  plantStoreAuth:
    'parses and routes the request (requests on one connection answered in order; a request id); authenticates the token (SHA-256, then its owner through the store: on SQLite from its token cache, in the read batch of its turn of the event loop, whose one read transaction and one `PRAGMA data_version` look, for commits by other connections, serve every request that arrived in that turn); validates the query against the contract',
  plantStoreAnswer:
    'picks the representation from Accept (none here: the Plant array); adds the Link, Vary, X-Request-Id and API security headers',
  expressPeer:
    'express-openapi-validator checks the request against openapi.yaml; SHA-256 of the token and a SQLite lookup of its hash; a SQLite query of 21 rows; `JSON.stringify`; the response checked against openapi.yaml',
  ceilingFixed:
    'bare Fastify sends a constant: the same 20 plants as pre-built JSON text and a constant Link header; no auth, validation, database or serialization',
};

export function scenarios(big: DataSet, small: DataSet, postgresRows: number): Scenario[] {
  const readers: ServerSpec[] = [
    { id: 'ceiling', kind: 'ceiling' },
    { id: 'express-peer', kind: 'express-peer', data: big },
    { id: 'plant-store', kind: 'plant-store', data: big },
  ];
  const writers: ServerSpec[] = [
    { id: 'express-peer', kind: 'express-peer', data: big },
    { id: 'plant-store', kind: 'plant-store', data: big },
    { id: 'per-request-normal', kind: 'plant-store-per-request-normal', data: big },
  ];
  // The same service on PostgreSQL, one process and two on one database, beside the SQLite default.
  const postgres: ServerSpec[] = [
    { id: 'plant-store', kind: 'plant-store', data: big },
    { id: 'postgres-1-instance', kind: 'plant-store-postgres' },
    { id: 'postgres-2-instances', kind: 'plant-store-postgres', instances: 2 },
  ];
  const postgresTable = `a PostgreSQL table of ${postgresRows.toLocaleString('en')} plants (SQLite: ${big.rows.toLocaleString('en')})`;
  const pageReaders: ServerSpec[] = [
    { id: 'ceiling-pages', kind: 'ceiling-pages' },
    { id: 'express-peer', kind: 'express-peer', data: big },
    { id: 'plant-store', kind: 'plant-store', data: big },
  ];
  const each = (servers: ServerSpec[], contestant: Omit<Contestant, 'label'>) =>
    servers.map((server) => ({ label: server.id, ...contestant }));
  const pages = pagesAtRandomCursors(20);
  return [
    realisticMix(big),
    {
      id: 'get-first-page',
      title: 'GET /plants?limit=20',
      about: `The first page of a user with ${PLANTS_PER_USER.toLocaleString('en')} plants, in a table of ${big.rows.toLocaleString('en')}, asked again and again: the best case for a cache, which is what Plant Store's answers are here (the realistic mix spreads them over users and writes).`,
      quick: true,
      servers: readers,
      contestants: each(readers, { plan: () => ({ kind: 'get', path: FIRST_PAGE }), rows: 20 }),
      does: {
        ceiling: DOES.ceilingFixed,
        'express-peer': DOES.expressPeer,
        'plant-store': `${DOES.plantStoreAuth}; takes the first page from the SQLite store's cache of first pages (its JSON text built once, by SQLite, when first asked, and sent as it is); ${DOES.plantStoreAnswer}`,
      },
      ours: 'plant-store',
      targets: [
        // Issue 54: back to the 0.75 the first page held before the edge grew (0.6 was issue 14's first bar).
        { kind: 'ratio', of: 'plant-store', to: 'ceiling', atLeast: 0.75 },
        { kind: 'ratio', of: 'plant-store', to: 'express-peer', atLeast: 4 },
        { kind: 'rss', of: 'plant-store', to: 'ceiling', megabytes: 40 },
      ],
    },
    {
      id: 'get-random-pages',
      title: 'GET /plants?limit=20&cursor=(random)',
      about:
        "Pages of 20 at 1,000 different cursors across the bench user's plants, picked at random: no page is asked often enough for a cache to matter.",
      quick: true,
      servers: pageReaders,
      contestants: each(pageReaders, { plan: () => ({ kind: 'get-any', paths: pages }), rows: 20 }),
      does: {
        'ceiling-pages': `bare Fastify decodes the cursor with Plant Store's codec, takes the 20 plants after it from an in-memory array of the user's ${PLANTS_PER_USER.toLocaleString('en')}, serializes them through the same response schema (fast-json-stringify) and builds the next Link: the same body and Link as Plant Store's; no auth, validation or database`,
        'express-peer': DOES.expressPeer.replace('a SQLite query', 'the cursor decoded; a SQLite query'),
        'plant-store': `${DOES.plantStoreAuth}; decodes the cursor; asks SQLite, in the next read batch, for the page's JSON text in one statement (json_group_array over 20 rows, with their ids and the first id after them, which tells whether more follow; src/store/sqlite/sqlite-store.ts, the same statement as for first pages); ${DOES.plantStoreAnswer}`,
      },
      ours: 'plant-store',
      targets: [{ kind: 'ratio', of: 'plant-store', to: 'ceiling-pages', atLeast: 0.35 }],
    },
    {
      id: 'post',
      title: 'POST /plants',
      about:
        'A new plant with a fresh id in each request. Plant Store answers after a group commit and the sync of the WAL after it (fdatasync on a libuv thread, as durable as synchronous=FULL); per-request-normal is the same Plant Store committing each write alone with synchronous=NORMAL; the Express peer commits each write alone with synchronous=NORMAL.',
      quick: true,
      servers: writers,
      contestants: each(writers, { plan: ({ firstId, step }) => ({ kind: 'post', firstId, step }) }),
      ours: 'plant-store',
      targets: [
        // DECISIONS.md, "Targets restated": durable group commit costs no more than a per-request commit without sync.
        { kind: 'ratio', of: 'plant-store', to: 'per-request-normal', atLeast: 1.0 },
        { kind: 'tail', of: 'plant-store', atMost: 4 },
      ],
    },
    {
      id: 'delete',
      title: 'DELETE /plants/{id}',
      about: 'Deletes of existing plants, each id once (the harness inserts them before each run).',
      quick: true,
      servers: writers,
      contestants: each(writers, { plan: ({ firstId }) => ({ kind: 'delete', firstId }) }),
      ours: 'plant-store',
      targets: [],
    },
    {
      id: 'mix-90-10',
      title: '90% GET /plants?limit=20, 10% POST /plants',
      about:
        "Nine reads of the first page for each new plant. The new ids sort after the page's plants, as growing ids do, so Plant Store's cached first page stays valid (a create drops only the pages it lands on); the next scenario is the opposite case.",
      quick: true,
      servers: writers,
      contestants: each(writers, { plan: ({ firstId, step }) => ({ kind: 'mix', path: FIRST_PAGE, firstId, step, writeEvery: 10 }) }),
      ours: 'plant-store',
      targets: [],
    },
    {
      id: 'mix-90-10-on-page',
      title: '90% GET /plants?limit=20, 10% POST /plants landing on that page',
      about:
        "As the previous scenario, but every new plant's id (negative, each below all before) sorts before all others, so it lands on the first page: each write drops Plant Store's cached first pages of that user, and the next read asks the database again.",
      quick: false,
      servers: writers,
      contestants: each(writers, {
        plan: ({ firstId, step }) => ({ kind: 'mix', path: FIRST_PAGE, firstId, step, writeEvery: 10 }),
        idsSortFirst: true,
      }),
      ours: 'plant-store',
      targets: [],
    },
    {
      id: 'postgres-get-first-page',
      title: 'PostgreSQL: GET /plants?limit=20',
      about: `The first page of the bench user, in ${postgresTable}. On PostgreSQL a request makes one round trip, for the page: each instance caches a token's owner for under a second, so a token in use costs one lookup a second per instance.`,
      quick: true,
      servers: postgres,
      contestants: each(postgres, { plan: () => ({ kind: 'get', path: FIRST_PAGE }), rows: 20 }),
      ours: 'postgres-2-instances',
      targets: [
        { kind: 'cpu', of: 'postgres-1-instance', to: 'plant-store', atMost: 2 },
        // DECISIONS.md: two instances' CPU per request, not their throughput, on a machine whose instances share a core.
        { kind: 'cpu', of: 'postgres-2-instances', to: 'postgres-1-instance', atMost: 1.5 },
      ],
    },
    {
      id: 'postgres-post',
      title: 'PostgreSQL: POST /plants',
      about: `A new plant with a fresh id in each request, in ${postgresTable}; each write is committed (synchronous_commit on, fsync on) before it is acknowledged.`,
      quick: false,
      servers: postgres,
      contestants: each(postgres, { plan: ({ firstId, step }) => ({ kind: 'post', firstId, step }) }),
      ours: 'postgres-2-instances',
      targets: [
        { kind: 'cpu', of: 'postgres-1-instance', to: 'plant-store', atMost: 2 },
        // DECISIONS.md: two instances' CPU per request, not their throughput, on a machine whose instances share a core.
        { kind: 'cpu', of: 'postgres-2-instances', to: 'postgres-1-instance', atMost: 1.5 },
      ],
    },
    {
      id: 'postgres-mix-90-10',
      title: 'PostgreSQL: 90% GET /plants?limit=20, 10% POST /plants',
      about: `Nine reads of the first page for each new plant, in ${postgresTable}.`,
      quick: false,
      servers: postgres,
      contestants: each(postgres, { plan: ({ firstId, step }) => ({ kind: 'mix', path: FIRST_PAGE, firstId, step, writeEvery: 10 }) }),
      ours: 'postgres-2-instances',
      targets: [],
    },
    {
      id: 'table-size',
      title: `GET at random cursors: table of ${big.rows.toLocaleString('en')} vs ${small.rows.toLocaleString('en')} rows`,
      about: `The same user, the same ${PLANTS_PER_USER.toLocaleString('en')} plants and pages; in one file they share the table with 990,000 other plants, in the other they are alone.`,
      quick: false,
      servers: [
        { id: `plant-store@${big.name}`, kind: 'plant-store', data: big },
        { id: `plant-store@${small.name}`, kind: 'plant-store', data: small },
      ],
      contestants: [`plant-store@${big.name}`, `plant-store@${small.name}`].map((label) => ({
        label,
        plan: () => ({ kind: 'get-any', paths: pages }),
        rows: 20,
      })),
      ours: `plant-store@${big.name}`,
      targets: [{ kind: 'ratio', of: `plant-store@${big.name}`, to: `plant-store@${small.name}`, atLeast: 0.9 }],
    },
    {
      id: 'page-size',
      title: 'GET at random cursors with limit 10, 100 and 1000',
      about: 'Plant Store alone; what matters is the server CPU each extra row costs.',
      quick: false,
      servers: [{ id: 'plant-store', kind: 'plant-store', data: big }],
      contestants: [10, 100, 1000].map((limit) => {
        const paths = pagesAtRandomCursors(limit);
        return { label: `limit=${limit}`, server: 'plant-store', plan: () => ({ kind: 'get-any', paths }), rows: limit };
      }),
      targets: [{ kind: 'row-cost', atMost: 1.5 }],
    },
  ];
}
