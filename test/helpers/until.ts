// Waits for a condition instead of a fixed time: polls it, and fails with `what` past the deadline.

/** `condition` may be async (a query of the database, say): each poll awaits it. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what = 'the condition'): Promise<void> {
  for (const started = Date.now(); !(await condition()); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
  }
}

/** until() for a condition that must be asked asynchronously (a server, a database): the same wait. */
export const eventually: (condition: () => Promise<boolean>, timeoutMs: number, what?: string) => Promise<void> = until;
