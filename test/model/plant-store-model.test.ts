// Model-based property test over real HTTP to a real server process on a real database:
// random sequences by three users whose ids collide, compared with the in-memory model after every step.
import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';
import { startServer } from '../helpers/process.js';
import { freshStore } from '../helpers/store-under-test.js';
import { runSequences } from './run-sequences.js';

const runs = Number(process.env.FUZZ_RUNS ?? 500);
const seed = Number(process.env.FUZZ_SEED ?? 20261122);

t.test(`${runs} random sequences match the model (seed ${seed})`, async (t) => {
  const settings = await freshStore(t);
  const server = await startServer(t, { ...settings.env, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' });
  // Tokens are made on the same database from here; each sequence gets three fresh users.
  const store = await openStore({ ...loadConfig({}), ...settings.config });
  t.teardown(() => store.close());

  const { sequences, requests } = await runSequences(store, [server.url], { runs, seed });
  t.pass(`${sequences} sequences (including shrinking), ${requests} requests, all matched the model`);
  t.ok(sequences >= runs);
});
