// The part of autocannon's API the harness uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      headers?: Record<string, string>;
      requests?: Request[];
    }
    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      '1xx': number;
      '2xx': number;
      '3xx': number;
      '4xx': number;
      '5xx': number;
    }
    type Instance = EventEmitter & PromiseLike<Result>;
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
