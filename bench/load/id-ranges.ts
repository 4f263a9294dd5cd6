// Fresh ids for every run of a load generator: a range per contestant and per run, never reused,
// so no run depends on how many ids an earlier one consumed.
import { INSTANCE_ID_STRIDE } from './plan.js';

/** Between contestants: far above the generated ids (1 to 10,000) and far below 2^53 (exact in JavaScript and Lua). */
export const CONTESTANT_ID_SPAN = 1e13;
/** Between successive runs (warm-up or measured) of one contestant: room for its instances. */
export const RUN_ID_SPAN = 10 * INSTANCE_ID_STRIDE;

/**
 * Where run `run` (0, 1, ...) of the `contestant`-th contestant starts its ids, and which way it
 * counts. `sortFirst`: negative ids counting down, each run below the one before, so every new
 * plant sorts before all others (it lands on the first page).
 */
export function freshIds(contestant: number, run: number, sortFirst = false): { firstId: number; step: 1 | -1 } {
  const start = (contestant + 1) * CONTESTANT_ID_SPAN + run * RUN_ID_SPAN;
  if (run >= CONTESTANT_ID_SPAN / RUN_ID_SPAN - 1) throw new Error(`too many runs for one contestant's ids (${run})`);
  return sortFirst ? { firstId: -start, step: -1 } : { firstId: start, step: 1 };
}
