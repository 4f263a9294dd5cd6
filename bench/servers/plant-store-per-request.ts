// The comparison variant: Plant Store as `npm start` runs it, the same app, routes
// and store, except that every write commits on its own with synchronous=NORMAL.
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { PerRequestCommit } from './per-request-commit.js';
import { serve } from './serve.js';

const config = loadConfig();
const store = new SqliteStore(config.databasePath, { writes: (db) => new PerRequestCommit(db) });
await serve(await buildApp(config, { store }), config.port, config.host);
