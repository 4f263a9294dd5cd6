// What a load generator sends: a small description both autocannon and wrk can turn into requests.

export type RequestPlan =
  /** The same GET every time. */
  | { kind: 'get'; path: string }
  /** One of these GETs at random each time (pages at many cursors: no single page to cache). */
  | { kind: 'get-any'; paths: string[] }
  /** POST /plants with a fresh id each time, counting up from firstId. */
  | { kind: 'post'; firstId: number }
  /** DELETE /plants/{id} of ids that exist, counting up from firstId. */
  | { kind: 'delete'; firstId: number }
  /** `path` nine times in ten, a POST with a fresh id the tenth. */
  | { kind: 'mix'; path: string; firstId: number; writeEvery: number };

export interface LoadRequest {
  url: string;
  token: string;
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
  /** Ids a post/delete/mix plan may have used, so the next run starts after them. */
  idsUsed: number;
}

/** The body of a fresh plant; every fifth has no tag, like the generated data. */
export function newPlantBody(id: number): string {
  return id % 5 === 0 ? `{"id":${id},"name":"Bench plant ${id}"}` : `{"id":${id},"name":"Bench plant ${id}","tag":"bench"}`;
}

/** Ids apart between the load generators of one run, one per server instance: more than any run uses. */
export const INSTANCE_ID_STRIDE = 100_000_000;

/** The plan for the `index`-th of several load generators: its fresh or existing ids start further on. */
export function shareOf(plan: RequestPlan, index: number): RequestPlan {
  return 'firstId' in plan ? { ...plan, firstId: plan.firstId + index * INSTANCE_ID_STRIDE } : plan;
}
