// The query hooks in a real React 19 render (jsdom) against a live Plant Store on a fresh database.
import './react-dom-globals.js';
import t from 'tap';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';
import { hooksScenario } from './react-query-scenario.js';

t.test('hooks against a live Plant Store', async (t) => {
  const app = await buildTestApp(t);
  const baseUrl = await listen(app);
  await hooksScenario(t, baseUrl, await tokenFor(app, 'alice'));
});
