// The writer thread: it owns the store's write connection, runs the writes the request thread sends
// (write-ops.ts) through its write queue, and answers each after its commit. Waiting here for a
// commit's fsync leaves the request thread free to serve other requests meanwhile.
import { parentPort, workerData } from 'node:worker_threads';
import { CommitSequence } from './commit-sequence.js';
import { openDatabase, type SqliteDatabase } from './database.js';
import type { TransactionHooks, WriteQueue } from './group-commit.js';
import { prepareWrites, type WriteOp, type WriteResult } from './write-ops.js';

export interface WriterData {
  path: string;
  /** The memory shared with the request thread (commit-sequence.ts). */
  sequence: SharedArrayBuffer;
  /** Longest a write waits for the write lock (WRITE_LOCK_TIMEOUT_MS). */
  lockTimeoutMs: number | undefined;
}

/** Writes sent in one message, each with the id the request thread knows it by. */
export interface WriteBatch {
  ids: number[];
  ops: WriteOp[];
}

/** An error as it crosses threads: its message and the properties the error handler reads. */
export interface SentError {
  message: string;
  code?: string;
  retryAfter?: number;
}

export type Outcome = { ok: true; value: WriteResult } | { ok: false; error: SentError };

/** One transaction, for metrics and traces (observability/channels.ts). */
export interface CommitReport {
  /** Ids of the writes it carried. */
  writes: number[];
  /** When it began, in ms since the epoch, and how long it took. */
  startedAt: number;
  durationMs: number;
  error?: SentError;
}

export interface WriteReplies {
  ids: number[];
  outcomes: Outcome[];
  /** Transactions ended since the last reply: reported before the writes they carried are answered. */
  commits: CommitReport[];
}

export type MakeWriteQueue = (db: SqliteDatabase, hooks: TransactionHooks, data: WriterData) => WriteQueue;

export function toSentError(error: unknown): SentError {
  const { message, code, retryAfter } = error as { message?: unknown; code?: unknown; retryAfter?: unknown };
  return {
    message: typeof message === 'string' ? message : String(error),
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof retryAfter === 'number' ? { retryAfter } : {}),
  };
}

const now = () => performance.timeOrigin + performance.now();

/** Runs in the worker: serves the request thread's writes until it says "close". */
export function serveWrites(makeQueue: MakeWriteQueue): void {
  const port = parentPort!;
  const data = workerData as WriterData;
  const db = openDatabase(data.path);
  const apply = prepareWrites(db);
  const sequence = new CommitSequence(db, data.sequence);
  let ended: CommitReport[] = [];
  let current: CommitReport | undefined;
  const end = (error?: unknown) => {
    if (current === undefined) return;
    current.durationMs = now() - current.startedAt;
    if (error !== undefined) current.error = toSentError(error);
    ended.push(current);
    current = undefined;
  };
  const hooks: TransactionHooks = {
    begun() {
      current = { writes: [], startedAt: now(), durationMs: 0 };
      sequence.begun();
    },
    committing: () => sequence.committing(),
    committed() {
      sequence.committed();
      end();
    },
    failed(error) {
      sequence.failed();
      end(error);
    },
  };
  const queue = makeQueue(db, hooks, data);
  port.postMessage('ready');

  port.on('message', (message: WriteBatch | 'close') => {
    if (message === 'close') {
      db.close();
      port.close();
      return;
    }
    const { ids, ops } = message;
    const settled = ops.map((op, index) =>
      queue.run(() => {
        current?.writes.push(ids[index]!);
        return apply(op);
      }, op.kind !== 'noteUses'),
    );
    void Promise.allSettled(settled).then((results) => {
      const outcomes = results.map((result): Outcome => (result.status === 'fulfilled' ? { ok: true, value: result.value } : { ok: false, error: toSentError(result.reason) }));
      const commits = ended;
      ended = [];
      port.postMessage({ ids, outcomes, commits } satisfies WriteReplies);
    });
  });
}
