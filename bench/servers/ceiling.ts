// Entry of the fixed-answer ceiling (ceiling-app.ts) as its own process.
import { buildCeiling } from './ceiling-app.js';
import { serve } from './serve.js';

await serve(buildCeiling());
