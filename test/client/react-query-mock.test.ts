// The query hooks in a real React 19 render (jsdom) against the mock, as a frontend test uses it: MSW's setupServer with plantStoreHandlers.
import './react-dom-globals.js';
import { setupServer } from 'msw/node';
import t from 'tap';
import { plantStoreHandlers } from '@plant-store/client/mock';
import { hooksScenario } from './react-query-scenario.js';

t.test('hooks against the mock', async (t) => {
  const baseUrl = 'http://plant-store.mock';
  const server = setupServer(...plantStoreHandlers({ baseUrl, tokens: ['pst_alice', 'pst_bob'] }));
  server.listen({ onUnhandledRequest: 'error' });
  t.teardown(() => server.close());
  await hooksScenario(t, baseUrl, 'pst_alice');
});
