// Waits for a condition instead of a fixed time: polls it, and fails with `what` past the deadline.

/** `condition` may be async (a query of the database, say): each poll awaits it. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what = 'the condition'): Promise<void> {
  for (const started = Date.now(); !(await condition()); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
  }
}

/** until() for a condition that must be asked asynchronously (a server, a database): the same wait. */
export const eventually: (condition: () => Promise<boolean>, timeoutMs: number, what?: string) => Promise<void> = until;

/**
 * Asks until `refused` holds, from just after a change's commit (a revocation, say); resolves when the last request
 * that was not refused was sent, in ms after the call (0: none). "Refused within N ms" is then `result < N`: measured
 * at the send, so a slow answer on a busy machine does not count against the promise.
 */
export async function lastNotRefused(refused: () => Promise<boolean>, timeoutMs: number, what?: string): Promise<number> {
  const committed = performance.now();
  let last = 0;
  await until(
    async () => {
      const sent = performance.now() - committed;
      if (await refused()) return true;
      last = sent;
      return false;
    },
    timeoutMs,
    what,
  );
  return last;
}
