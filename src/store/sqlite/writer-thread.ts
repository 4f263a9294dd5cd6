// The request thread's side of the writer thread (writer.ts): writes made in one turn of the event
// loop go over in one message; each is answered when the writer reports it committed. Until then its
// owner is "being written", which the caches read (cached-reads.ts): the commit is visible in the file
// before its answer arrives here, so the caches learn of it only with the answer.
import { AsyncResource } from 'node:async_hooks';
import { Worker } from 'node:worker_threads';
import { DatabaseBusy, DatabaseUnavailable, retryLater } from '../../errors.js';
import { commits } from '../../observability/channels.js';
import type { WriteOp, WriteResults } from './write-ops.js';
import type { SentError, WriteBatch, WriteReplies, WriterData } from './writer.js';

interface Pending {
  op: WriteOp;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** The async context the write was made in, kept only while someone listens to commits (see CommitContext). */
  queuedIn: AsyncResource | undefined;
}

export interface WriterThreadOptions extends WriterData {
  /** The worker's entry: commit-worker.js unless another write policy is measured (the benchmark). */
  entry: URL;
  /** Called with each write that succeeded, before its caller is answered: the caches drop what it changed. */
  written: (op: WriteOp, result: unknown) => void;
  /** Called once if the writer stops unexpectedly: writes in flight may or may not have committed. */
  lost: () => void;
}

/** The entry next to this module, compiled (.js) or run from source by tsx (.ts). */
export function besideThisModule(name: string, here: string): URL {
  return new URL(`./${name}${here.endsWith('.ts') ? '.ts' : '.js'}`, here);
}

/** Rebuilds an error sent by the writer: a held write lock is the 503 with Retry-After it was. */
function rebuild(sent: SentError): Error {
  if (sent.code === 'PLANT_STORE_DATABASE_BUSY' && sent.retryAfter !== undefined) return retryLater(new DatabaseBusy(sent.retryAfter), sent.retryAfter);
  return Object.assign(new Error(sent.message), sent.code === undefined ? {} : { code: sent.code });
}

export class WriterThread {
  /** Transactions the writer has committed; tests read it to see writes share one. */
  commits = 0;
  /** Settles once the writer has opened the file: writes made before wait for it. */
  readonly started: Promise<void>;
  readonly #worker: Worker;
  readonly #written: WriterThreadOptions['written'];
  readonly #lost: WriterThreadOptions['lost'];
  #queue: Array<[id: number, pending: Pending]> = [];
  #scheduled = false;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  /** Owners with a plant write sent and not answered, and how many. */
  readonly #owners = new Map<string, number>();
  /** Token writes sent and not answered that can change a token's owner lookup (revocations). */
  #revoking = 0;
  /** Why the writer stopped, once it has: every write is then refused. */
  #stopped: Error | undefined;
  #drained: (() => void) | undefined;
  #closing: Promise<void> | undefined;

  constructor({ entry, written, lost, ...data }: WriterThreadOptions) {
    this.#written = written;
    this.#lost = lost;
    this.#worker = new Worker(entry, { workerData: data satisfies WriterData });
    this.#worker.unref(); // referenced only while writes are in flight (run, #idle): an idle writer keeps no process alive
    this.started = new Promise((resolve, reject) => {
      this.#worker.on('message', (message: WriteReplies | 'ready') => (message === 'ready' ? resolve() : this.#answer(message)));
      this.#worker.on('error', (error) => {
        reject(error);
        this.#stop(error);
      });
      this.#worker.on('exit', (code) => {
        const error = new Error(`the SQLite writer thread exited (code ${code})`);
        reject(error);
        this.#stop(error);
      });
    });
    this.started.catch(() => undefined); // a write made meanwhile reports the failure; whoever awaits this does too
  }

  run<K extends WriteOp['kind']>(op: Extract<WriteOp, { kind: K }>): Promise<WriteResults[K]> {
    return new Promise((resolve, reject) => {
      if (this.#closing !== undefined) return reject(new Error('the SQLite store is closed'));
      if (this.#stopped !== undefined) return reject(this.#stopped);
      if ('owner' in op) this.#owners.set(op.owner, (this.#owners.get(op.owner) ?? 0) + 1);
      if (op.kind === 'revokeToken') this.#revoking++;
      const pending: Pending = { op, resolve: resolve as (value: unknown) => void, reject, queuedIn: commits.hasSubscribers ? new AsyncResource('plant-store:queued-write') : undefined };
      const id = this.#nextId++;
      this.#queue.push([id, pending]);
      this.#pending.set(id, pending);
      if (this.#pending.size === 1) this.#worker.ref();
      if (!this.#scheduled) {
        this.#scheduled = true;
        // setImmediate runs after the pending I/O callbacks: the writes of requests that arrived together go in one message.
        setImmediate(() => this.#send());
      }
    });
  }

  /** Whether a write of `owner`'s plants is on its way: the caches neither answer nor keep that owner's pages meanwhile. */
  isWriting(owner: string): boolean {
    return this.#owners.has(owner);
  }

  /** Whether a revocation is on its way: token owners are looked up, not kept, meanwhile. */
  get revoking(): boolean {
    return this.#revoking > 0;
  }

  #send(): void {
    this.#scheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    if (this.#stopped !== undefined) return;
    this.#worker.postMessage({ ids: queue.map(([id]) => id), ops: queue.map(([, pending]) => pending.op) } satisfies WriteBatch);
  }

  #answer({ ids, outcomes, commits: reports }: WriteReplies): void {
    for (const report of reports) {
      this.commits += report.error === undefined ? 1 : 0;
      if (!commits.hasSubscribers) continue;
      commits.publish({
        store: 'sqlite',
        batchSize: report.writes.length,
        queuedIn: report.writes.map((id) => this.#pending.get(id)?.queuedIn),
        startedAt: report.startedAt,
        durationMs: report.durationMs,
        ...(report.error === undefined ? {} : { error: rebuild(report.error) }),
      });
    }
    ids.forEach((id, index) => {
      const pending = this.#pending.get(id);
      if (pending === undefined) return; // refused already: the writer stopped
      this.#pending.delete(id);
      const outcome = outcomes[index]!;
      if (outcome.ok) this.#written(pending.op, outcome.value);
      this.#settled(pending.op);
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(rebuild(outcome.error));
    });
    if (this.#pending.size === 0) this.#idle();
  }

  /** The write is answered: its owner is no longer being written by it. */
  #settled(op: WriteOp): void {
    if ('owner' in op) {
      const left = this.#owners.get(op.owner)! - 1;
      if (left === 0) this.#owners.delete(op.owner);
      else this.#owners.set(op.owner, left);
    }
    if (op.kind === 'revokeToken') this.#revoking--;
  }

  #idle(): void {
    this.#worker.unref();
    this.#drained?.();
  }

  /** The writer is gone: every write, in flight or later, is refused with 503 (the store is not ready either). */
  #stop(cause: Error): void {
    if (this.#stopped !== undefined) return;
    const error = new DatabaseUnavailable({ cause });
    this.#stopped = error;
    if (this.#closing === undefined) this.#lost();
    for (const [, pending] of this.#pending) {
      this.#settled(pending.op);
      pending.reject(error);
    }
    this.#pending.clear();
    this.#queue = [];
    this.#idle();
  }

  /** Whether the writer still runs. */
  get running(): boolean {
    return this.#stopped === undefined;
  }

  /** Once, however often it is called: waits for the writes in flight, then stops the writer. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#pending.size > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
      if (this.#stopped !== undefined) return;
      const exited = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
      this.#worker.ref();
      this.#worker.postMessage('close');
      await exited;
    })();
    return this.#closing;
  }
}
