// The conformance run's HTTP: every response is read whole and checked against openapi.yaml, and
// no request starts once the run is interrupted (the one in flight finishes, so its outcome is known).
import type { ResponseValidator } from './response-validator.js';

export class Interrupted extends Error {
  constructor() {
    super('interrupted');
  }
}

/** The run stops sending once this many requests in a row got no answer: a service that hangs fails in minutes, not an hour. */
const GIVE_UP_AFTER = 3;

/** Thrown instead of sending, once the service has stopped answering: nothing of it reached the service. */
export class NotAnswering extends Error {
  constructor(timeoutSeconds: number) {
    super(`not sent: the last ${GIVE_UP_AFTER} requests got no answer (--timeout ${timeoutSeconds} s each); the service is not answering`);
  }
}

export interface Exchange {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  /** How this response departs from openapi.yaml; empty when it follows it. */
  problems: string[];
}

export interface Send {
  token?: string | undefined;
  /** Sent as it is: ids are written in the text, digit for digit. */
  body?: string;
  contentType?: string;
  accept?: string;
}

export class Http {
  interrupted = false;
  /** How the run's responses departed from openapi.yaml, for the check that is running to report. */
  readonly problems: string[] = [];
  /** The declared answers this run received (declared-answers.ts keys). */
  readonly exercised = new Set<string>();
  /** Requests sent, answered or not. */
  sent = 0;
  #inFlight = new Set<Promise<unknown>>();
  /** Requests in a row that got no answer (refused, reset, or past the timeout). */
  #unanswered = 0;

  constructor(
    readonly baseUrl: string,
    readonly validator: ResponseValidator,
    readonly timeoutSeconds = 30,
  ) {}

  async send(method: string, path: string, options: Send = {}, { ignoreInterrupt = false } = {}): Promise<Exchange> {
    if (this.interrupted && !ignoreInterrupt) throw new Interrupted();
    if (this.#unanswered >= GIVE_UP_AFTER) throw new NotAnswering(this.timeoutSeconds);
    const headers: Record<string, string> = {};
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    if (options.accept !== undefined) headers.accept = options.accept;
    this.sent++;
    const pending = fetch(this.baseUrl + path, {
      method,
      headers,
      body: options.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(this.timeoutSeconds * 1000),
    }).then(async (response) => ({
      status: response.status,
      headers: Object.fromEntries(response.headers.entries()),
      body: await response.text(),
    }));
    this.#inFlight.add(pending);
    try {
      const answer = await pending.catch((error: unknown) => {
        this.#unanswered++;
        throw error;
      });
      this.#unanswered = 0;
      const exchange = { method, path, ...answer, problems: this.validator.check(method, path, answer) };
      const key = this.validator.answerKey(method, path, answer);
      if (key !== undefined) this.exercised.add(key);
      this.problems.push(...exchange.problems.map((problem) => `${method} ${path.slice(0, 80)}: ${problem}`));
      return exchange;
    } finally {
      this.#inFlight.delete(pending);
    }
  }

  /** Resolves when no request is in flight any more. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }
}
