// The comparison variant: Plant Store as `npm start` runs it, the same app, routes and reads,
// except that every create and delete commits on its own with synchronous=NORMAL.
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { perRequestCommitStore } from './per-request-store.js';
import { serve } from './serve.js';

const config = loadConfig();
await serve(await buildApp(config, { store: perRequestCommitStore(config.databasePath) }), config.port, config.host);
