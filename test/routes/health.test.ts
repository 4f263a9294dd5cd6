// Liveness and readiness.
import t from 'tap';
import { buildTestApp, inject } from '../helpers/app.js';

t.test('healthz and readyz answer ok on a working database', async (t) => {
  const app = await buildTestApp(t);
  t.same((await inject(t, app, { url: '/healthz' })).json(), { status: 'ok' });
  t.same((await inject(t, app, { url: '/readyz' })).json(), { status: 'ok' });
});

t.test('readyz answers 503 once the database is closed, healthz stays up', async (t) => {
  const app = await buildTestApp(t);
  await app.store.close();
  t.equal((await inject(t, app, { url: '/readyz' })).status, 503);
  t.equal((await inject(t, app, { url: '/healthz' })).status, 200);
});
