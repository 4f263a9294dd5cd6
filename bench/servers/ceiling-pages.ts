// Entry of the page-building ceiling (ceiling-pages-app.ts) as its own process.
import { buildCeilingPages } from './ceiling-pages-app.js';
import { serve } from './serve.js';

await serve(buildCeilingPages());
