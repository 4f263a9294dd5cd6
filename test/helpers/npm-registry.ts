// A team's own npm registry, as far as `npm publish` and `npm install` of a scoped package use one: in memory, on 127.0.0.1.
// Verdaccio would do, at some two hundred packages for three requests; what npm sends and reads here is the registry API's core
// (a PUT of the package document with its tarball attached, a GET of that document, a GET of the tarball).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

interface Published {
  name: string;
  versions: Record<string, { dist: { tarball: string } }>;
  'dist-tags': Record<string, string>;
  _attachments?: Record<string, { data: string }>;
}

export interface NpmRegistry {
  /** Its URL, ending in a slash as npm writes registries. */
  url: string;
  /** The token `npm publish` must send (npm sends what the userconfig gives for this registry). */
  token: string;
  /** Every request it got, as `METHOD path status`. */
  requests: string[];
}

async function text(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += String(chunk);
  return body;
}

export async function startNpmRegistry(t: Test): Promise<NpmRegistry> {
  const token = 'registry-test-token';
  const packages = new Map<string, Omit<Published, '_attachments'>>();
  const tarballs = new Map<string, Buffer>();
  const requests: string[] = [];
  /** The answer to one request: status and body (a Buffer is a tarball). */
  async function answer(method: string | undefined, path: string, request: IncomingMessage): Promise<[number, unknown]> {
    if (method === 'PUT') {
      if (request.headers.authorization !== `Bearer ${token}`) return [401, { error: 'log in to publish' }];
      const { _attachments: attachments = {}, ...document } = JSON.parse(await text(request)) as Published;
      if (packages.has(document.name)) return [403, { error: `${document.name} is already published` }];
      for (const version of Object.values(document.versions)) {
        const file = version.dist.tarball.split('/').pop()!;
        const attached = Object.entries(attachments).find(([name]) => name === file || name.endsWith(`/${file}`))?.[1];
        if (attached === undefined) return [400, { error: `no attachment for ${file}` }];
        tarballs.set(decodeURIComponent(new URL(version.dist.tarball).pathname), Buffer.from(attached.data, 'base64'));
      }
      packages.set(document.name, document);
      return [201, { ok: true }];
    }
    const tarball = tarballs.get(path);
    if (tarball !== undefined) return [200, tarball];
    const document = packages.get(path.slice(1));
    return document === undefined ? [404, { error: 'not found' }] : [200, document];
  }
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://registry').pathname);
    void answer(request.method, path, request).then(([status, body]) => {
      requests.push(`${request.method} ${path} ${status}`);
      const tarball = Buffer.isBuffer(body);
      response.writeHead(status, { 'content-type': tarball ? 'application/octet-stream' : 'application/json' });
      response.end(tarball ? body : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, token, requests };
}
