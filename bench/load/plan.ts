// What a load generator sends: a small description both autocannon and wrk can turn into requests.

/** Shares of the calls in a mix of users (they sum to 1). */
export interface MixShares {
  firstPage: number;
  cursorPage: number;
  create: number;
  delete: number;
}

export type RequestPlan =
  /** The same GET every time. */
  | { kind: 'get'; path: string }
  /** One of these GETs at random each time (pages at many cursors: no single page to cache). */
  | { kind: 'get-any'; paths: string[] }
  /** POST /plants with a fresh id each time, from firstId on, `step` apart (-1: each below all before). */
  | { kind: 'post'; firstId: number; step: 1 | -1 }
  /** DELETE /plants/{id} of ids that exist, counting up from firstId. */
  | { kind: 'delete'; firstId: number }
  /** `path` nine times in ten, a POST with a fresh id (as in `post`) the tenth. */
  | { kind: 'mix'; path: string; firstId: number; step: 1 | -1; writeEvery: number }
  /**
   * Many users: each call picks a user by `weights` (rank order of `users`), then a first page of
   * `limit`, a page at one of `cursors`, a create (fresh ids from firstId up, shared by all users) or
   * a delete (each user's own ids from deleteFirstId up, which must exist), by `shares`.
   */
  | {
      kind: 'users-mix';
      users: readonly string[];
      weights: number[];
      limit: number;
      cursors: string[];
      shares: MixShares;
      firstId: number;
      deleteFirstId: number;
      seed: number;
    };

export interface LoadRequest {
  url: string;
  /** The bench user's token. */
  token: string;
  /** Tokens of the users a users-mix plan acts as. */
  tokens: ReadonlyMap<string, string>;
  connections: number;
  seconds: number;
  plan: RequestPlan;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  /** Answers with a status other than the one expected (2xx). */
  unexpected: number;
  /** Connection errors and timeouts. */
  errors: number;
  p50Ms: number;
  p99Ms: number;
}

/** The body of a fresh plant; every fifth has no tag, like the generated data. */
export function newPlantBody(id: number): string {
  return id % 5 === 0 ? `{"id":${id},"name":"Bench plant ${id}"}` : `{"id":${id},"name":"Bench plant ${id}","tag":"bench"}`;
}

/** Ids apart between the load generators of one run, one per server instance: more than any run uses. */
export const INSTANCE_ID_STRIDE = 100_000_000;
/** Where a users-mix plan's deletes start, after its creates' first id: more creates than any run makes. */
export const DELETE_ID_OFFSET = 50_000_000;

/** The plan for the `index`-th of several load generators: its fresh or existing ids start further on. */
export function shareOf(plan: RequestPlan, index: number): RequestPlan {
  switch (plan.kind) {
    case 'post':
    case 'mix':
      return { ...plan, firstId: plan.firstId + plan.step * index * INSTANCE_ID_STRIDE };
    case 'delete':
      return { ...plan, firstId: plan.firstId + index * INSTANCE_ID_STRIDE };
    case 'users-mix':
      return {
        ...plan,
        firstId: plan.firstId + index * INSTANCE_ID_STRIDE,
        deleteFirstId: plan.deleteFirstId + index * INSTANCE_ID_STRIDE,
      };
    default:
      return plan;
  }
}
