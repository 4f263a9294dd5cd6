// Load for reliability tests: many requests over a fixed number of keep-alive connections,
// recording which ones the server acknowledged.
import { Agent, request } from 'node:http';

export interface Outcome {
  status?: number;
  body?: string;
  error?: string;
}

export interface Load {
  agent: Agent;
  send(method: string, path: string, token: string, body?: string): Promise<Outcome>;
  close(): void;
}

export function load(base: string, connections: number): Load {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const url = new URL(base);
  return {
    agent,
    send(method, path, token, body) {
      return new Promise((resolve) => {
        const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
        if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        const req = request({ agent, host: url.hostname, port: url.port, method, path, headers }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => (text += String(chunk)));
          response.on('end', () => resolve({ status: response.statusCode, body: text }));
          response.on('error', (error) => resolve({ error: error.message }));
        });
        req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

/** Every plant of the user, following the Link pages. */
export async function listAll(base: string, token: string): Promise<Array<{ name: string; tag?: string }>> {
  const plants: Array<{ name: string; tag?: string }> = [];
  let path: string | undefined = '/plants?limit=1000';
  while (path !== undefined) {
    const response: Response = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    plants.push(...((await response.json()) as typeof plants));
    path = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
  }
  return plants;
}
