// Runs random command sequences against real servers and the in-memory model side by side:
// each sequence gets three fresh users, made as tokens on the servers' own database.
import fc from 'fast-check';
import { createToken } from '../../src/auth/tokens.js';
import type { Store } from '../../src/store/plant-store.js';
import { commandsFor, type Model, type Real } from './plant-model.js';

const USERS = ['alice', 'bob', 'carol'];

/** Request n goes to bases[n mod bases.length]. Throws fast-check's report (shrunk) when a sequence disagrees with the model. */
export async function runSequences(
  store: Store,
  bases: string[],
  { runs, seed }: { runs: number; seed: number },
): Promise<{ sequences: number; requests: number }> {
  let sequences = 0;
  let requests = 0;
  await fc.assert(
    fc.asyncProperty(commandsFor(USERS), async (commands) => {
      const prefix = `s${sequences++}`;
      const made = await Promise.all(USERS.map(async (user) => [user, (await createToken(store, `${prefix}-${user}`)).token] as const));
      const real: Real = { bases, tokens: new Map(made), requests: 0 };
      await fc.asyncModelRun(() => ({ model: new Map() as Model, real }), commands);
      requests += real.requests;
    }),
    { numRuns: runs, seed, verbose: fc.VerbosityLevel.Verbose },
  );
  return { sequences, requests };
}
