// Runs before the suite (`npm run test:sqlite`, before tap): starts the contract sentinel's record afresh.
import { rmSync } from 'node:fs';
import { coverageDir } from '../helpers/contract.js';

rmSync(coverageDir, { recursive: true, force: true });
