// One conformance run: its random id block and names, the checks' bookkeeping (a check fails when any
// response it received departs from openapi.yaml), and the plants it created, so they can be deleted.
import { randomBytes } from 'node:crypto';
import { Interrupted, NotAnswering, type Exchange, type Http } from './http.js';
import type { Result } from './report.js';

export interface Verdict {
  ok: boolean;
  actual: string;
  /** The check could not be made here (the reason is in `actual`); it neither passes nor fails. */
  skip?: boolean;
}

export interface RunOptions {
  token: string;
  otherToken: string;
  print: (line: string) => void;
  format: (result: Result) => string;
}

/** A short account of a response for a result line. */
export function seen(exchange: Exchange, headers: string[] = []): string {
  const shown = headers.map((name) => `${name}: ${exchange.headers[name.toLowerCase()] ?? '(none)'}`);
  const body = exchange.body.length > 160 ? `${exchange.body.slice(0, 160)}...` : exchange.body;
  return [String(exchange.status), ...shown, body].filter((part) => part !== '').join(' ');
}

/** Distinct problems, at most five of them, and how many there were. */
function summary(problems: string[]): string {
  const distinct = [...new Set(problems)];
  return (
    distinct.slice(0, 5).join('; ') +
    (distinct.length > 5 ? `; and ${distinct.length - 5} more` : '') +
    (problems.length > distinct.length ? ` (${problems.length} in all)` : '')
  );
}

export const status = (exchange: Exchange, expected: number, headers: string[] = []): Verdict => ({
  ok: exchange.status === expected,
  actual: seen(exchange, headers),
});

export interface Created {
  token: string;
  id: bigint;
  name?: string;
  /** False when the create got no clear answer (none, or a 5xx): the plant may or may not exist. */
  sure: boolean;
}

/** Whether a request failed before it reached the service (nothing can have been stored). */
const neverArrived = (error: unknown) =>
  error instanceof NotAnswering ||
  ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(String((error as { cause?: { code?: unknown } }).cause?.code));

export class Run {
  readonly results: Result[] = [];
  /** Plants this run created and has not deleted yet: `${token} ${id}`. */
  readonly created = new Map<string, Created>();
  readonly runId = randomBytes(4).toString('hex');
  /**
   * Ids from here to block + 999 are this run's: random, so they are no one else's. Below 2^53, so
   * a deployment that rounds large ids still deletes them; the large ids are checked one by one (checks/ids.ts).
   */
  readonly block = 1n + (BigInt(`0x${randomBytes(8).toString('hex')}`) % (2n ** 53n - 1000n));

  constructor(
    readonly http: Http,
    readonly options: RunOptions,
  ) {}

  id(offset: number): bigint {
    return this.block + BigInt(offset);
  }

  name(label: string): string {
    return `conformance ${this.runId} ${label}`;
  }

  /** Whether a plant's name is one this run gives. */
  isMine(name: unknown): boolean {
    return typeof name === 'string' && name.startsWith(`conformance ${this.runId} `);
  }

  async check(operation: string, title: string, expected: string, body: () => Promise<Verdict>): Promise<Verdict> {
    const first = this.http.problems.length;
    const started = performance.now();
    let verdict: Verdict;
    try {
      verdict = await body();
    } catch (error) {
      if (error instanceof Interrupted) throw error;
      verdict = {
        ok: false,
        actual: `failed: ${(error as Error).message}${(error as { cause?: Error }).cause ? ` (${(error as { cause: Error }).cause.message})` : ''}`,
      };
    }
    const problems = this.http.problems.slice(first);
    const result: Result = {
      status: verdict.skip ? 'skip' : verdict.ok && problems.length === 0 ? 'pass' : 'fail',
      operation,
      title,
      expected,
      actual: problems.length === 0 ? verdict.actual : `${verdict.actual}; NOT AS openapi.yaml SAYS: ${summary(problems)}`,
      seconds: (performance.now() - started) / 1000,
    };
    this.results.push(result);
    this.options.print(this.options.format(result));
    return verdict;
  }

  /** POST /plants with the id written exactly; a 200 means the plant is there and this run must delete it. */
  async create(id: bigint, name: string, tag?: string, token = this.options.token): Promise<Exchange> {
    const body = `{"id":${id},"name":${JSON.stringify(name)}${tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`}}`;
    const exchange = await this.post(body, id, token);
    const entry = this.created.get(`${token} ${id}`);
    if (exchange.status === 200 && entry !== undefined) entry.name = name;
    return exchange;
  }

  /** Whether `id` is in this run's block: no one else's, so deleting it on a doubt harms nothing. */
  ownsId(id: bigint): boolean {
    return id >= this.block && id < this.block + 1000n;
  }

  /**
   * POST /plants with any body; when it answers 200, `id` is recorded for deletion, and its Location must
   * name it. An id of the run's block is recorded on a doubt too (no answer, or a 5xx that may have stored it).
   */
  async post(body: string, id: bigint | undefined, token = this.options.token, contentType?: string): Promise<Exchange> {
    let exchange: Exchange;
    try {
      exchange = await this.http.send('POST', '/plants', { token, body, contentType });
    } catch (error) {
      if (id !== undefined && this.ownsId(id) && !neverArrived(error)) this.#doubt(token, id);
      throw error;
    }
    if (id !== undefined && exchange.status === 200) this.created.set(`${token} ${id}`, { token, id, sure: true });
    else if (id !== undefined && exchange.status >= 500 && this.ownsId(id)) this.#doubt(token, id);
    const location = exchange.headers.location;
    if (exchange.status === 200 && id !== undefined && location !== undefined && location !== `/plants/${id}`)
      this.http.problems.push(`POST /plants: 200 Location is "${location}", not /plants/${id}: it does not name the plant created`);
    return exchange;
  }

  #doubt(token: string, id: bigint): void {
    if (!this.created.has(`${token} ${id}`)) this.created.set(`${token} ${id}`, { token, id, sure: false });
  }

  async remove(id: bigint, token = this.options.token, ignoreInterrupt = false): Promise<Exchange> {
    const exchange = await this.http.send('DELETE', `/plants/${id}`, { token }, { ignoreInterrupt });
    if (exchange.status === 204 || exchange.status === 404) this.created.delete(`${token} ${id}`);
    return exchange;
  }
}
