// A fetch for clients under test: real HTTP, every response checked against openapi.yaml
// by the contract sentinel, and every request kept so tests can look at what went on the wire.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import { checkResponse } from './contract.js';

export interface SentRequest {
  method: string;
  /** Path and query, as the server saw them. */
  url: string;
  headers: Headers;
  body: string;
}

export interface CheckedFetch {
  fetch: (request: Request) => Promise<Response>;
  sent: SentRequest[];
}

export function checkedFetch(t: Test): CheckedFetch {
  const sent: SentRequest[] = [];
  const fetchChecked = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname + url.search;
    sent.push({ method: request.method, url: path, headers: request.headers, body: await request.clone().text() });
    const response = await fetch(request);
    const body = await response.clone().text();
    const problems = checkResponse(request.method, path, {
      status: response.status,
      headers: Object.fromEntries(response.headers.entries()),
      body,
    });
    t.same(problems, [], `${request.method} ${path} -> ${response.status} follows openapi.yaml`);
    return response;
  };
  return { fetch: fetchChecked, sent };
}

/** Listens on a free port of 127.0.0.1 and answers the base URL; the app's teardown closes it. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}
