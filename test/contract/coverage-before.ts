// Runs before the SQLite leg of `npm test`: starts the contract sentinel's record afresh.
import { rmSync } from 'node:fs';
import { coverageDir } from '../helpers/contract.js';

rmSync(coverageDir, { recursive: true, force: true });
