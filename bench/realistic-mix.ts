// The realistic mix (issue 14): many users by Zipf's law, first pages, pages at random cursors,
// creates and deletes, against the fixed-answer ceiling.
import { MIX_USERS } from './bench-user.js';
import { randomCursors } from './cursors.js';
import type { DataSet } from './data.js';
import { DELETE_ID_OFFSET, type MixShares } from './load/plan.js';
import { PLANTS_PER_USER } from './plant-content.js';
import type { Contestant, Scenario } from './scenario.js';
import type { ServerSpec } from './servers.js';
import { zipfWeights } from './zipf.js';

/** The realistic mix (issue 14): shares of the calls. */
export const MIX_SHARES: MixShares = { firstPage: 0.6, cursorPage: 0.25, create: 0.1, delete: 0.05 };
/** Zipf exponent of the traffic over the mix's users. */
export const MIX_ZIPF_EXPONENT = 1;

const percent = (share: number) => `${Math.round(share * 100)}%`;

export function realisticMix(big: DataSet): Scenario {
  const servers: ServerSpec[] = [
    { id: 'ceiling', kind: 'ceiling', users: MIX_USERS },
    { id: 'express-peer', kind: 'express-peer', data: big, users: MIX_USERS },
    { id: 'plant-store', kind: 'plant-store', data: big, users: MIX_USERS },
    // The same server with METRICS_PORT set (issue 19): what metrics cost on the hot path.
    { id: 'plant-store+metrics', kind: 'plant-store', data: big, users: MIX_USERS, metrics: true },
    // The same server again (an A/A measurement): its ratio to plant-store is what this run's noise alone
    // gives, beside which a target such as the metrics one (0.95) can be read.
    { id: 'plant-store-twin', kind: 'plant-store', data: big, users: MIX_USERS },
  ];
  const cursors = randomCursors(1000, 20, 14);
  const weights = zipfWeights(MIX_USERS.length, MIX_ZIPF_EXPONENT);
  return {
    id: 'realistic-mix',
    title: `Realistic mix: ${MIX_USERS.length} users by Zipf's law, ${percent(MIX_SHARES.firstPage)} first pages, ${percent(MIX_SHARES.cursorPage)} pages at random cursors, ${percent(MIX_SHARES.create)} creates, ${percent(MIX_SHARES.delete)} deletes`,
    about:
      `${MIX_USERS.length} users of ${PLANTS_PER_USER.toLocaleString('en')} plants each, in a table of ${big.rows.toLocaleString('en')}, each with their own token. ` +
      `Each call picks a user by Zipf's law (exponent ${MIX_ZIPF_EXPONENT}: the busiest user gets ${percent(weights[0]!)} of the calls, the quietest ${(weights.at(-1)! * 100).toFixed(2)}%), ` +
      `then a first page of 20 (${percent(MIX_SHARES.firstPage)}), a page of 20 at one of 1,000 random cursors across the user's plants (${percent(MIX_SHARES.cursorPage)}), ` +
      `a create with a fresh id above all existing ones, as growing ids are (${percent(MIX_SHARES.create)}), or a delete of one of the user's plants that the harness inserted before the run (${percent(MIX_SHARES.delete)}). ` +
      "Neither changes that user's first page (creates land after it, deletes well past it), so Plant Store's cached first pages stay. Every answer expected is a 2xx.",
    quick: true,
    servers,
    contestants: servers.map((server): Contestant => ({
      label: server.id,
      plan: ({ firstId }) => ({
        kind: 'users-mix',
        users: MIX_USERS,
        weights,
        limit: 20,
        cursors,
        shares: MIX_SHARES,
        firstId,
        deleteFirstId: firstId + DELETE_ID_OFFSET,
        seed: 14,
      }),
    })),
    does: {
      ceiling: `answers each call with a constant of the right shape and status: GET (first page or cursor) as in the GET scenario, POST a constant plant after Fastify parsed the JSON body, DELETE 204; no auth, validation, database or disk`,
      'express-peer':
        'per call, its validator and token lookup, then one SQLite statement; each write its own commit with synchronous=NORMAL',
      'plant-store-twin':
        'the same server as plant-store, started the same way: its ratio to plant-store is the noise of this run alone (an A/A measurement, no target)',
      'plant-store+metrics':
        'the same as plant-store, with METRICS_PORT set: per answered request a counter and a latency histogram (by operation, method and status); per SQLite group commit its batch size and time; the event loop sampled every 10 ms (nobody scrapes during the run)',
      'plant-store': `per call, authenticates that user's token and validates the request as in the GET scenarios; then as in the single-operation scenarios: first pages from its cache of first pages (a write keeps the pages it cannot change), pages at cursors from SQLite, creates and deletes answered after their group commit and the sync of the WAL that follows it (off the event loop; meanwhile tokens and first pages come from the caches, and other reads wait for it)`,
    },
    ours: 'plant-store',
    targets: [
      { kind: 'ratio', of: 'plant-store', to: 'ceiling', atLeast: 0.55 }, // issue 54 (0.5 was issue 14's)
      // Issue 19: metrics cost at most 5% of the realistic mix's throughput.
      { kind: 'ratio', of: 'plant-store+metrics', to: 'plant-store', atLeast: 0.95 },
    ],
  };
}
