// Waits for a condition instead of a fixed time: polls it, and fails with `what` past the deadline.

export async function until(condition: () => boolean, timeoutMs: number, what = 'the condition'): Promise<void> {
  for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 10))) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
  }
}
