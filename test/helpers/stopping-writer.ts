// A writer thread (the store's `writer` option) that stops at its first write, as a writer that crashed
// would: the thread exits before answering.
import { serveWrites } from '../../src/store/sqlite/writer.js';

serveWrites(() => ({
  commits: 0,
  run: () => process.exit(3), // in a worker, ends this thread only
}));
