#!/usr/bin/env node
// `plant-store-mock`: the mock's MSW handlers served over HTTP on 127.0.0.1 (msw's documented getResponse), for dev servers and Storybook.
import './no-local-storage.js'; // first: before msw is loaded
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { getResponse } from 'msw';
import { plantStoreHandlers } from './index.js';

const USAGE = 'plant-store-mock --port <port> [--token <token>]...';
/** Read at most this much of a body: enough for the mock to see it is over the 16 KiB limit and answer 413. */
const READ_LIMIT = 64 * 1024;
/** What a page on another origin (a dev server, Storybook) may read and send. */
const CORS = {
  'access-control-expose-headers': 'Link, Location, WWW-Authenticate, X-Request-Id, Retry-After',
  'access-control-allow-methods': 'GET, POST, DELETE',
  'access-control-allow-headers': 'Authorization, Content-Type, Accept, X-Request-Id',
  'access-control-max-age': '600',
};

function options(args: string[]) {
  const { values } = parseArgs({
    args,
    options: { port: { type: 'string' }, token: { type: 'string', multiple: true }, help: { type: 'boolean', default: false } },
  });
  if (values.help) return undefined;
  const port = Number(values.port);
  if (values.port === undefined || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error('--port must be a port number, 0 to 65535');
  return { port, tokens: values.token ?? [] };
}

async function readBody(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    if (size <= READ_LIMIT) chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks);
}

async function main(): Promise<number> {
  let settings: ReturnType<typeof options>;
  try {
    settings = options(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`plant-store-mock: ${(error as Error).message}\nUsage: ${USAGE}\n`);
    return 2;
  }
  if (settings === undefined) {
    process.stdout.write(`Usage: ${USAGE}\nEach --token is a user of its own; without one, a token is made and printed once.\n`);
    return 0;
  }
  const made = settings.tokens.length === 0 ? `pst_${randomBytes(32).toString('base64url')}` : undefined;
  let handlers: ReturnType<typeof plantStoreHandlers> = [];

  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    void (async () => {
      const origin = incoming.headers.origin;
      const cors = { ...CORS, 'access-control-allow-origin': origin ?? '*', vary: 'Origin' };
      if (incoming.method === 'OPTIONS' && incoming.headers['access-control-request-method'] !== undefined) {
        outgoing.writeHead(204, cors).end();
        return;
      }
      const body = incoming.method === 'GET' || incoming.method === 'HEAD' ? undefined : await readBody(incoming);
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const request = new Request(`${base}${incoming.url ?? '/'}`, {
        method: incoming.method ?? 'GET',
        headers,
        ...(body !== undefined && body.length > 0 && { body: new Uint8Array(body) }),
      });
      const response = await getResponse(handlers, request);
      if (response === undefined) {
        outgoing.writeHead(500, { 'content-type': 'application/json' }).end('{"error":500,"message":"No handler answered."}');
        return;
      }
      const answered: Record<string, string> = { ...cors };
      response.headers.forEach((value, name) => {
        answered[name] = name === 'vary' ? `Origin, ${value}` : value;
      });
      outgoing.writeHead(response.status, answered).end(Buffer.from(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      process.stderr.write(`plant-store-mock: ${String(error)}\n`);
      if (!outgoing.headersSent) outgoing.writeHead(500, { 'content-type': 'application/json' });
      outgoing.end('{"error":500,"message":"The mock failed; see its terminal."}');
    });
  });
  let base = '';
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(settings.port, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handlers = plantStoreHandlers({ baseUrl: base, tokens: made === undefined ? settings.tokens : [made] });
  process.stdout.write(`Plant Store mock on ${base} (in memory; stop with Ctrl-C)\n`);
  if (made !== undefined) process.stdout.write(`token (user1, printed once): ${made}\n`);
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  return -1;
}

main().then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`plant-store-mock: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
