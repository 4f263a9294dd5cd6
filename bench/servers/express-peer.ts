// Entry of the Express peer (express-peer-app.ts) as its own process, on DATABASE_PATH.
import { buildPeer } from './express-peer-app.js';

const { app } = buildPeer(process.env.DATABASE_PATH!);
const server = app.listen(Number(process.env.PORT), '127.0.0.1');
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    server.close(() => process.exit(0)).closeAllConnections();
  });
