// The comparison variant: Plant Store as `npm start` runs it, the same app, routes, store and
// writer thread, except that the writer commits every write on its own with synchronous=NORMAL.
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { besideThisModule } from '../../src/store/sqlite/writer-thread.js';
import { serve } from './serve.js';

const config = loadConfig();
const store = await SqliteStore.open(config.databasePath, { writer: besideThisModule('per-request-writer', import.meta.url) });
await serve(await buildApp(config, { store }), config.port, config.host);
