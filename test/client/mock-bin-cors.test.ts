// plant-store-mock answers CORS as the service does with CORS_ORIGINS: --cors-origin (repeatable) allows an origin, and without one no origin is allowed.
import { spawn } from 'node:child_process';
import t, { type Test } from 'tap';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';
import { MOCK_BIN, startMockBin } from '../helpers/mock-bin.js';

const ALLOWED = ['http://127.0.0.1:5173', 'http://localhost:6006'];
const OTHER = 'http://127.0.0.1:8080';

/** plant-store-mock started as a team starts it, with these options; its base URL once it listens. */
function startMock(t: Test, options: string[]): Promise<string> {
  return startMockBin(t, ['--token', 'pst_mock', ...options]).then((mock) => mock.url);
}

interface Probe {
  method: string;
  path: string;
  origin?: string;
  /** Access-Control-Request-Method and -Headers: a preflight. */
  preflight?: [string, string?];
}

const probes = (origin: string): Probe[] => [
  { method: 'OPTIONS', path: '/plants', origin, preflight: ['POST', 'authorization,content-type'] },
  { method: 'OPTIONS', path: '/plants/1', origin, preflight: ['DELETE', 'authorization'] },
  { method: 'OPTIONS', path: '/plants', origin, preflight: ['PUT', 'x-custom'] },
  { method: 'OPTIONS', path: '/plants', origin },
  { method: 'GET', path: '/plants', origin },
  { method: 'GET', path: '/nowhere', origin },
  { method: 'GET', path: '/healthz', origin },
];

/** What a browser reads of an answer for CORS: the status, and every Access-Control-* header and Vary. */
async function seen(base: string, probe: Probe, token: string): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = {};
  if (probe.origin !== undefined) headers.origin = probe.origin;
  if (probe.preflight !== undefined) {
    headers['access-control-request-method'] = probe.preflight[0];
    if (probe.preflight[1] !== undefined) headers['access-control-request-headers'] = probe.preflight[1];
  } else if (probe.method !== 'OPTIONS') headers.authorization = `Bearer ${token}`;
  const response = await fetch(base + probe.path, { method: probe.method, headers });
  await response.arrayBuffer();
  const cors = [...response.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary');
  return { status: response.status, ...Object.fromEntries(cors) };
}

t.test('with --cors-origin, the mock answers every CORS request as the service with CORS_ORIGINS', async (t) => {
  const app = await buildTestApp(t, { corsOrigins: ALLOWED });
  const service = await listen(app);
  const token = await tokenFor(app, 'alice');
  const mock = await startMock(
    t,
    ALLOWED.flatMap((origin) => ['--cors-origin', origin]),
  );
  for (const probe of [...probes(ALLOWED[0]!), ...probes(ALLOWED[1]!), ...probes(OTHER), { method: 'GET', path: '/plants' }]) {
    const name = `${probe.method} ${probe.path} from ${probe.origin ?? 'no origin'}${probe.preflight ? ` (preflight ${probe.preflight[0]})` : ''}`;
    t.same(await seen(mock, probe, 'pst_mock'), await seen(service, probe, token), name);
  }
  const preflight = await seen(mock, probes(ALLOWED[0]!)[0]!, 'pst_mock');
  t.match(preflight, { 'access-control-allow-origin': ALLOWED[0], 'access-control-allow-headers': 'Authorization, Content-Type' });
});

t.test('without --cors-origin, the mock allows no origin, as the service without CORS_ORIGINS', async (t) => {
  const app = await buildTestApp(t, { corsOrigins: [] });
  const service = await listen(app);
  const token = await tokenFor(app, 'alice');
  const mock = await startMock(t, []);
  for (const probe of probes(ALLOWED[0]!)) {
    const fromMock = await seen(mock, probe, 'pst_mock');
    t.same(fromMock, await seen(service, probe, token), `${probe.method} ${probe.path}${probe.preflight ? ' (preflight)' : ''}`);
    t.notOk('access-control-allow-origin' in fromMock, 'no Access-Control-Allow-Origin');
  }
});

t.test('--cors-origin must be an origin: scheme, host and port, nothing else', async (t) => {
  for (const bad of ['*', 'localhost:5173', 'http://localhost:5173/', 'http://localhost:5173/app']) {
    const mock = spawn(process.execPath, [MOCK_BIN, '--port', '0', '--cors-origin', bad], { stdio: ['ignore', 'pipe', 'pipe'] });
    let errors = '';
    mock.stderr.on('data', (chunk) => (errors += String(chunk)));
    const code = await new Promise<number | null>((resolve) => mock.on('exit', resolve));
    t.equal(code, 2, `${bad}: exit 2`);
    t.match(errors, new RegExp(`--cors-origin .*${bad.replace(/[*/.]/g, '\\$&')}`), `${bad}: named in the error`);
  }
});
