// The scenarios: who runs in each, what they are sent, and the targets their figures are held to.
import { encodeCursor } from '../src/pagination/cursor.js';
import { PLANTS_PER_USER, type DataSet } from './data.js';
import type { RequestPlan } from './load/plan.js';
import type { ServerSpec } from './servers.js';

export interface Contestant {
  /** Its name in tables and ratios; also the id of the server it runs on unless `server` says otherwise. */
  label: string;
  server?: string;
  /** `firstId`: where this run's fresh (post) or existing (delete) ids start. */
  plan: (firstId: number) => RequestPlan;
  /** The plan deletes plants: they must exist first, from firstId on. */
  deletes?: boolean;
  /** Fresh ids below every existing one (negative: ids are any int64), so each new plant lands on the first page. */
  idsSortFirst?: boolean;
  /** Plants in each answer, for the cost per row. */
  rows?: number;
}

export type Target =
  /** Median of the per-round ratios of requests per second. */
  | { kind: 'ratio'; of: string; to: string; atLeast: number }
  /** Peak RSS of `of` at most `megabytes` above that of `to`. */
  | { kind: 'rss'; of: string; to: string; megabytes: number }
  /** Median over rounds of p99 / p50. */
  | { kind: 'tail'; of: string; atMost: number }
  /** Server CPU per extra row, between successive contestants (ordered by rows), varies at most by this factor. */
  | { kind: 'row-cost'; atMost: number };

export interface Scenario {
  id: string;
  title: string;
  about: string;
  /** Part of `--quick`. */
  quick: boolean;
  servers: ServerSpec[];
  contestants: Contestant[];
  /** Whose ratios to everyone else the report shows. */
  ours?: string;
  targets: Target[];
}

/** A deterministic generator, so every run asks for the same pages. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 1,000 full pages starting after random ids of the bench user: too many distinct pages for any cache to make this a repeat. */
function pagesAtRandomCursors(limit: number): string[] {
  const next = random(limit);
  return Array.from({ length: 1000 }, () => {
    const after = Math.floor(next() * (PLANTS_PER_USER - limit));
    return `/plants?limit=${limit}&cursor=${encodeCursor(BigInt(after))}`;
  });
}

const FIRST_PAGE = '/plants?limit=20';

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
  const each = (servers: ServerSpec[], contestant: Omit<Contestant, 'label'>) => servers.map((server) => ({ label: server.id, ...contestant }));
  const pages = pagesAtRandomCursors(20);
  return [
    {
      id: 'get-first-page',
      title: 'GET /plants?limit=20',
      about: `The first page of a user with ${PLANTS_PER_USER.toLocaleString('en')} plants, in a table of ${big.rows.toLocaleString('en')}, asked again and again.`,
      quick: true,
      servers: readers,
      contestants: each(readers, { plan: () => ({ kind: 'get', path: FIRST_PAGE }), rows: 20 }),
      ours: 'plant-store',
      targets: [
        { kind: 'ratio', of: 'plant-store', to: 'ceiling', atLeast: 0.6 },
        { kind: 'ratio', of: 'plant-store', to: 'express-peer', atLeast: 4 },
        { kind: 'rss', of: 'plant-store', to: 'ceiling', megabytes: 40 },
      ],
    },
    {
      id: 'get-random-pages',
      title: 'GET /plants?limit=20&cursor=(random)',
      about: 'Pages of 20 at 1,000 different cursors, picked at random: every answer comes from the database (the ceiling ignores the cursor).',
      quick: false,
      servers: readers,
      contestants: each(readers, { plan: () => ({ kind: 'get-any', paths: pages }), rows: 20 }),
      ours: 'plant-store',
      targets: [],
    },
    {
      id: 'post',
      title: 'POST /plants',
      about: 'A new plant with a fresh id in each request. Plant Store answers after a group commit with synchronous=FULL; per-request-normal is the same Plant Store committing each write alone with synchronous=NORMAL; the Express peer commits each write alone with synchronous=NORMAL.',
      quick: true,
      servers: writers,
      contestants: each(writers, { plan: (firstId) => ({ kind: 'post', firstId }) }),
      ours: 'plant-store',
      targets: [
        { kind: 'ratio', of: 'plant-store', to: 'per-request-normal', atLeast: 1.5 },
        { kind: 'tail', of: 'plant-store', atMost: 4 },
      ],
    },
    {
      id: 'delete',
      title: 'DELETE /plants/{id}',
      about: 'Deletes of existing plants, each id once (the harness inserts them before each run).',
      quick: true,
      servers: writers,
      contestants: each(writers, { plan: (firstId) => ({ kind: 'delete', firstId }), deletes: true }),
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
      contestants: each(writers, { plan: (firstId) => ({ kind: 'mix', path: FIRST_PAGE, firstId, writeEvery: 10 }) }),
      ours: 'plant-store',
      targets: [],
    },
    {
      id: 'mix-90-10-on-page',
      title: '90% GET /plants?limit=20, 10% POST /plants landing on that page',
      about:
        "As the previous scenario, but every new plant's id (negative) sorts before all others, so it lands on the first page: each write drops Plant Store's cached first pages of that user, and the next read asks the database again.",
      quick: false,
      servers: writers,
      contestants: each(writers, { plan: (firstId) => ({ kind: 'mix', path: FIRST_PAGE, firstId, writeEvery: 10 }), idsSortFirst: true }),
      ours: 'plant-store',
      targets: [],
    },
    {
      id: 'postgres-get-first-page',
      title: 'PostgreSQL: GET /plants?limit=20',
      about: `The first page of the bench user, in ${postgresTable}. On PostgreSQL every request asks the database (for the token, then the page): nothing is cached, as several instances share it.`,
      quick: true,
      servers: postgres,
      contestants: each(postgres, { plan: () => ({ kind: 'get', path: FIRST_PAGE }), rows: 20 }),
      ours: 'postgres-2-instances',
      targets: [],
    },
    {
      id: 'postgres-post',
      title: 'PostgreSQL: POST /plants',
      about: `A new plant with a fresh id in each request, in ${postgresTable}; each write is committed (synchronous_commit on, fsync on) before it is acknowledged.`,
      quick: false,
      servers: postgres,
      contestants: each(postgres, { plan: (firstId) => ({ kind: 'post', firstId }) }),
      ours: 'postgres-2-instances',
      targets: [],
    },
    {
      id: 'postgres-mix-90-10',
      title: 'PostgreSQL: 90% GET /plants?limit=20, 10% POST /plants',
      about: `Nine reads of the first page for each new plant, in ${postgresTable}.`,
      quick: false,
      servers: postgres,
      contestants: each(postgres, { plan: (firstId) => ({ kind: 'mix', path: FIRST_PAGE, firstId, writeEvery: 10 }) }),
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
      contestants: [`plant-store@${big.name}`, `plant-store@${small.name}`].map((label) => ({ label, plan: () => ({ kind: 'get-any', paths: pages }), rows: 20 })),
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
