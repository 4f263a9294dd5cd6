#!/usr/bin/env node
// `plant-store-mock`: the mock's MSW handlers served over HTTP on 127.0.0.1 (msw's documented getResponse), for dev servers and Storybook.
import './no-local-storage.js'; // first: before msw is loaded
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { getResponse } from 'msw';
import { CORS_POLICY, isCorsRequest, isOrigin } from '../generated/cors-policy.js';
import { plantStoreHandlers } from './index.js';

const USAGE = 'plant-store-mock --port <port> [--token <token>]... [--cors-origin <origin>]...';
/** Read at most this much of a body: enough for the mock to see it is over the 16 KiB limit and answer 413. */
const READ_LIMIT = 64 * 1024;

/**
 * The CORS headers the service (@fastify/cors with CORS_POLICY) gives: with origins allowed, `Vary: Origin` on every
 * answer; to an allowed origin, what a page may read, and on a preflight also what it may send. Without origins allowed,
 * none at all (the service then does not register CORS). `preflight` says to answer 204 at once, as the service does.
 */
function corsHeaders(allowed: ReadonlySet<string>, incoming: IncomingMessage): { preflight: boolean; headers: Record<string, string> } {
  if (allowed.size === 0) return { preflight: false, headers: {} };
  const origin = incoming.headers.origin;
  const method = incoming.method ?? 'GET';
  if (!isCorsRequest(allowed, origin, method, incoming.headers['access-control-request-method']))
    return { preflight: false, headers: { vary: 'Origin' } };
  const headers = {
    vary: 'Origin',
    'access-control-allow-origin': origin!,
    'access-control-expose-headers': CORS_POLICY.exposedHeaders.join(', '),
  };
  if (method !== 'OPTIONS') return { preflight: false, headers };
  return {
    preflight: true,
    headers: {
      ...headers,
      'access-control-allow-methods': CORS_POLICY.methods.join(', '),
      'access-control-allow-headers': CORS_POLICY.allowedHeaders.join(', '),
      'access-control-max-age': String(CORS_POLICY.maxAge),
    },
  };
}

function options(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      token: { type: 'string', multiple: true },
      'cors-origin': { type: 'string', multiple: true },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
  const port = Number(values.port);
  if (values.port === undefined || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error('--port must be a port number, 0 to 65535');
  const origins = values['cors-origin'] ?? [];
  const bad = origins.find((origin) => !isOrigin(origin));
  if (bad !== undefined)
    throw new Error(`--cors-origin must be an origin such as http://localhost:5173 (scheme, host and port only), not ${bad}`);
  return { port, tokens: values.token ?? [], corsOrigins: new Set(origins) };
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
    process.stdout.write(
      `Usage: ${USAGE}\nEach --token is a user of its own; without one, a token is made and printed once.\n` +
        'Each --cors-origin is a page origin allowed to call the mock (CORS, as the service with CORS_ORIGINS); without one, none is.\n',
    );
    return 0;
  }
  const made = settings.tokens.length === 0 ? `pst_${randomBytes(32).toString('base64url')}` : undefined;
  let handlers: ReturnType<typeof plantStoreHandlers> = [];

  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    void (async () => {
      const cors = corsHeaders(settings.corsOrigins, incoming);
      if (cors.preflight) {
        outgoing.writeHead(204, { ...cors.headers, 'content-length': '0' }).end();
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
        outgoing
          .writeHead(500, { ...cors.headers, 'content-type': 'application/json' })
          .end('{"error":500,"message":"No handler answered."}');
        return;
      }
      const answered: Record<string, string> = { ...cors.headers };
      response.headers.forEach((value, name) => {
        answered[name] = name === 'vary' && answered.vary !== undefined ? `${answered.vary}, ${value}` : value;
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
