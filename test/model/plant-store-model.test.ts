// Model-based property test over real HTTP to a real server process on a real database:
// random sequences by three users whose ids collide, compared with the in-memory model after every step.
import fc from 'fast-check';
import t from 'tap';
import { createToken } from '../../src/auth/tokens.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';
import { startServer } from '../helpers/process.js';
import { freshStore } from '../helpers/store-under-test.js';
import { commandsFor, type Model, type Real } from './plant-model.js';

const runs = Number(process.env.FUZZ_RUNS ?? 500);
const seed = Number(process.env.FUZZ_SEED ?? 20261122);

t.test(`${runs} random sequences match the model (seed ${seed})`, async (t) => {
  const settings = await freshStore(t);
  const server = await startServer(t, { ...settings.env, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' });
  // Tokens are made on the same database from here; each sequence gets three fresh users.
  const store = await openStore({ ...loadConfig({}), ...settings.config });
  t.teardown(() => store.close());

  let sequence = 0;
  let requests = 0;
  await fc.assert(
    fc.asyncProperty(commandsFor(['alice', 'bob', 'carol']), async (commands) => {
      const prefix = `s${sequence++}`;
      const made = await Promise.all(['alice', 'bob', 'carol'].map(async (user) => [user, (await createToken(store, `${prefix}-${user}`)).token] as const));
      const real: Real = { bases: [server.url], tokens: new Map(made), requests: 0 };
      await fc.asyncModelRun(() => ({ model: new Map() as Model, real }), commands);
      requests += real.requests;
    }),
    { numRuns: runs, seed, verbose: 1 },
  );
  t.pass(`${sequence} sequences (including shrinking), ${requests} requests, all matched the model`);
  t.ok(sequence >= runs);
});
