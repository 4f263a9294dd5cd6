// A reverse proxy on 127.0.0.1 in front of a real server that injects one fault, so tests can show
// the conformance run notices it: it may rewrite a request, answer in the server's place, or rewrite the answer.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export interface ProxiedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface ProxiedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Fault {
  /** Rewrites the request on its way to the server. */
  request?: (request: ProxiedRequest) => ProxiedRequest | Promise<ProxiedRequest>;
  /** Answers instead of the server. */
  answer?: (request: ProxiedRequest) => ProxiedResponse | undefined;
  /** Rewrites the server's answer. */
  response?: (response: ProxiedResponse, request: ProxiedRequest) => ProxiedResponse;
}

const flat = (headers: IncomingHttpHeaders) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

/** Starts the proxy; answers its base URL. It closes when the test ends. */
export async function faultyProxy(t: Test, target: string, fault: Fault): Promise<string> {
  const server = createServer((incoming, outgoing) => {
    let body = '';
    incoming.setEncoding('utf8');
    incoming.on('data', (chunk: string) => (body += chunk));
    incoming.on('end', () => {
      void (async () => {
        let request: ProxiedRequest = { method: incoming.method ?? 'GET', url: incoming.url ?? '/', headers: flat(incoming.headers), body };
        if (fault.request) request = await fault.request(request);
        let response = fault.answer?.(request);
        if (response === undefined) {
          const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
          const answer = await fetch(target + request.url, {
            method: request.method,
            headers,
            body: request.body === '' ? undefined : request.body,
            redirect: 'manual',
          });
          response = { status: answer.status, headers: Object.fromEntries(answer.headers.entries()), body: await answer.text() };
          if (fault.response) response = fault.response(response, request);
        }
        const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
        outgoing.writeHead(response.status, headers).end(response.body);
      })().catch((error: unknown) => outgoing.writeHead(502).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  server.unref();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
