// The writer thread's entry (writer.ts): the store's writes, by group commit.
import { GroupCommit } from './group-commit.js';
import { serveWrites } from './writer.js';

serveWrites((db, hooks, { lockTimeoutMs }) => new GroupCommit(db, { lockTimeoutMs, hooks }));
