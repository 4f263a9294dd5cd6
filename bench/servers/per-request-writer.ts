// The writer thread of the benchmark's per-request-normal server: Plant Store's writer (writer.ts)
// with one commit per write instead of group commit.
import { serveWrites } from '../../src/store/sqlite/writer.js';
import { PerRequestCommit } from './per-request-commit.js';

serveWrites((db, hooks) => new PerRequestCommit(db, hooks));
