// The plants a plan's deletes will ask for, which the harness inserts before the run: enough for
// the most requests the run can make, with margin, and few more.
import { BENCH_USER } from '../bench-user.js';
import type { RequestPlan } from './plan.js';

export interface Seed {
  owner: string;
  firstId: number;
  count: number;
}

/** `expectedRequests`: an upper estimate of the requests the run will send (already with margin). */
export function seedsFor(plan: RequestPlan, expectedRequests: number, connections: number): Seed[] {
  switch (plan.kind) {
    case 'delete':
      return [{ owner: BENCH_USER, firstId: plan.firstId, count: Math.ceil(expectedRequests) + 4 * connections }];
    case 'users-mix':
      return plan.users.map((owner, rank) => {
        // A user's deletes are a binomial count: its mean plus four standard deviations, and a few.
        const mean = expectedRequests * plan.shares.delete * plan.weights[rank]!;
        return { owner, firstId: plan.deleteFirstId, count: Math.ceil(mean + 4 * Math.sqrt(mean)) + 10 };
      });
    default:
      return [];
  }
}
