// The calls of a users-mix plan in JavaScript (autocannon; wrk runs the same choices in Lua, see
// wrk-users-mix.ts): per call a user by Zipf rank, then what to ask by the plan's shares.
import { seededRandom } from '../random.js';
import { cumulative, pick } from '../zipf.js';
import { newPlantBody, type RequestPlan } from './plan.js';

export type UsersMixPlan = Extract<RequestPlan, { kind: 'users-mix' }>;

export interface MixCall {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  user: string;
  body?: string;
}

/** The users' tokens in rank order; a user without one is a mistake in the harness, not a 401 to count. */
export function tokensInRank(plan: UsersMixPlan, tokens: ReadonlyMap<string, string>): string[] {
  return plan.users.map((user) => {
    const token = tokens.get(user);
    if (token === undefined) throw new Error(`no token for ${user}: the server's data was made without the mix users`);
    return token;
  });
}

/** Cumulative thresholds of the four kinds of call, in the order first page, cursor page, create, delete. */
export function shareThresholds(plan: UsersMixPlan): number[] {
  const { firstPage, cursorPage, create, delete: remove } = plan.shares;
  return cumulative([firstPage, cursorPage, create, remove]);
}

/** A generator of calls; deletes take each user's next id from deleteFirstId, creates the next fresh id. */
export function usersMix(plan: UsersMixPlan): () => MixCall {
  const next = seededRandom(plan.seed);
  const users = cumulative(plan.weights);
  const kinds = shareThresholds(plan);
  const deleted = plan.users.map(() => plan.deleteFirstId);
  let id = plan.firstId;
  return () => {
    const rank = pick(users, next());
    const user = plan.users[rank]!;
    switch (pick(kinds, next())) {
      case 0:
        return { method: 'GET', path: `/plants?limit=${plan.limit}`, user };
      case 1:
        return {
          method: 'GET',
          path: `/plants?limit=${plan.limit}&cursor=${plan.cursors[Math.floor(next() * plan.cursors.length)]!}`,
          user,
        };
      case 2:
        return { method: 'POST', path: '/plants', user, body: newPlantBody(id++) };
      default:
        return { method: 'DELETE', path: `/plants/${deleted[rank]!++}`, user };
    }
  };
}
