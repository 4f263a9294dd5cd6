// How the request thread tells its own writer thread's commits from anyone else's. Triggers count every
// row change to plants and tokens in `commit_sequence` (migration 4), whoever makes it. The writer
// publishes, in memory both threads share, the count each of its commits ends at, before it commits;
// when the request thread sees the count move, it keeps its caches only if the new count is one the
// writer published and the writer saw no one else's change since the request thread last looked.
// The writer's own changes are then dropped from the caches one by one, when each write is answered.
import type { SqliteDatabase } from './database.js';

/** Slots of the shared memory: the count the writer's latest commit ends at, the one before it, and the highest count it found moved by someone else. */
const OWN_END = 0;
const PREVIOUS_END = 1;
const FOREIGN_UP_TO = 2;

export function readChangeCount(db: SqliteDatabase): () => bigint {
  const read = db.prepare('SELECT changes FROM commit_sequence').pluck().safeIntegers();
  return () => read.get() as bigint;
}

/** The memory both threads share, starting at `count`: what the request thread saw when it opened the file. */
export function sharedCommitSequence(count: bigint): SharedArrayBuffer {
  const memory = new SharedArrayBuffer(3 * BigInt64Array.BYTES_PER_ELEMENT);
  new BigInt64Array(memory).fill(count);
  return memory;
}

/** The writer's side, called inside each of its transactions. */
export class CommitSequence {
  readonly #published: BigInt64Array;
  readonly #count: () => bigint;
  /** The count after this writer's last commit (at first: what the request thread saw). */
  #end: bigint;
  /** The count the transaction under way ends at, once published. */
  #ending: bigint | undefined;

  constructor(db: SqliteDatabase, memory: SharedArrayBuffer) {
    this.#published = new BigInt64Array(memory);
    this.#count = readChangeCount(db);
    this.#end = Atomics.load(this.#published, OWN_END);
  }

  /** A transaction began (it holds the write lock): a count that moved since this writer's last commit was moved by someone else. */
  begun(): void {
    const count = this.#count();
    if (count !== this.#end) Atomics.store(this.#published, FOREIGN_UP_TO, count);
  }

  /** Its writes are done; before COMMIT makes them visible, publish the count it ends at. */
  committing(): void {
    const ending = this.#count();
    this.#ending = ending;
    Atomics.store(this.#published, PREVIOUS_END, this.#end);
    Atomics.store(this.#published, OWN_END, ending);
  }

  committed(): void {
    if (this.#ending !== undefined) this.#end = this.#ending;
    this.#ending = undefined;
  }

  /**
   * The transaction was rolled back: the count it published may never be reached by this writer, or be
   * reached by someone else's commit. Counting it as someone else's makes the request thread drop its
   * caches rather than trust that count.
   */
  failed(): void {
    const ending = this.#ending;
    this.#ending = undefined;
    if (ending === undefined) return;
    const foreign = Atomics.load(this.#published, FOREIGN_UP_TO);
    if (ending > foreign) Atomics.store(this.#published, FOREIGN_UP_TO, ending);
    Atomics.store(this.#published, OWN_END, this.#end);
  }
}

/** The request thread's side. */
export class OwnCommits {
  readonly #published: BigInt64Array;

  constructor(memory: SharedArrayBuffer) {
    this.#published = new BigInt64Array(memory);
  }

  /**
   * Whether every change from count `seen` to count `now` (read in the caller's snapshot, after `seen`)
   * was made by the writer. The writer publishes before it commits, so a commit in the snapshot is
   * published; a count published since, by a newer transaction, only makes this answer no.
   */
  only(seen: bigint, now: bigint): boolean {
    const end = Atomics.load(this.#published, OWN_END);
    const previous = Atomics.load(this.#published, PREVIOUS_END);
    return (now === end || now === previous) && Atomics.load(this.#published, FOREIGN_UP_TO) <= seen;
  }
}
