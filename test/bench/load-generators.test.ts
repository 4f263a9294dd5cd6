// Both load generators (wrk with its Lua script, autocannon in JavaScript) against a server that
// records every request: the realistic mix's users, tokens, shares and ids, and creates that count down.
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { MIX_USERS } from '../../bench/bench-user.js';
import { runAutocannon } from '../../bench/load/autocannon-load.js';
import { DELETE_ID_OFFSET, type LoadRequest, type LoadResult, type RequestPlan } from '../../bench/load/plan.js';
import { runWrk } from '../../bench/load/wrk-load.js';
import { hasCommand } from '../../bench/machine.js';
import { MIX_SHARES } from '../../bench/realistic-mix.js';
import { zipfWeights } from '../../bench/zipf.js';

interface Seen {
  method: string;
  url: string;
  authorization: string;
  contentType: string | undefined;
  body: string;
}

/** A server answering like Plant Store would (200, or 204 to a delete) and keeping what it was sent. */
async function recorder(t: Test): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.push({
        method: request.method!,
        url: request.url!,
        authorization: request.headers.authorization ?? '',
        contentType: request.headers['content-type'],
        body,
      });
      if (request.method === 'DELETE') response.writeHead(204).end();
      else response.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const tokens = new Map(MIX_USERS.map((user) => [user, `tok-${user}`]));
const mixPlan: RequestPlan = {
  kind: 'users-mix',
  users: MIX_USERS,
  weights: zipfWeights(MIX_USERS.length),
  limit: 20,
  cursors: ['Y3Vyc29yMQ', 'Y3Vyc29yMg'],
  shares: MIX_SHARES,
  firstId: 1e13,
  deleteFirstId: 1e13 + DELETE_ID_OFFSET,
  seed: 14,
};

const generators: Array<[string, boolean, (load: LoadRequest) => Promise<LoadResult>]> = [
  ['wrk', hasCommand('wrk'), (load) => runWrk(load, [])],
  ['autocannon', true, runAutocannon],
];

/**
 * Whether `ids` are distinct and taken in order from `first` on (`step` apart), in any order of arrival
 * (connections interleave), skipping at most a few: wrk calls the script's request() once before the
 * run to check it, and each connection may drop the one it had made when the run stops.
 */
const takenInOrder = (ids: number[], first: number, step = 1) => {
  const offsets = ids.map((id) => (id - first) * step);
  return new Set(ids).size === ids.length && offsets.every((offset) => Number.isInteger(offset) && offset >= 0 && offset < ids.length + 8);
};

for (const [name, available, run] of generators) {
  t.test(`${name}: the realistic mix`, { skip: available ? false : `${name} is not installed` }, async (t) => {
    const { url, seen } = await recorder(t);
    // Three seconds: the shares below need about a thousand requests, also on a busy machine.
    const result = await run({ url, token: 'bench', tokens, connections: 4, seconds: 3, plan: mixPlan });
    t.equal(result.unexpected + result.errors, 0, 'every answer as expected');
    t.ok(seen.length > 1000, `${seen.length} requests: enough for the shares to be measured`);
    const byKind = { first: 0, cursor: 0, create: 0, delete: 0 };
    const users = new Map<string, number>();
    const creates: number[] = [];
    const deletes = new Map<string, number[]>();
    let wrong = 0;
    for (const request of seen) {
      const user = request.authorization.replace(/^Bearer tok-/, '');
      if (!tokens.has(user)) wrong++;
      users.set(user, (users.get(user) ?? 0) + 1);
      if (request.method === 'GET' && request.url === '/plants?limit=20') byKind.first++;
      else if (request.method === 'GET' && /^\/plants\?limit=20&cursor=Y3Vyc29y(MQ|Mg)$/.test(request.url)) byKind.cursor++;
      else if (request.method === 'POST' && request.url === '/plants' && request.contentType === 'application/json') {
        byKind.create++;
        creates.push((JSON.parse(request.body) as { id: number }).id);
      } else if (request.method === 'DELETE' && /^\/plants\/\d+$/.test(request.url)) {
        byKind.delete++;
        deletes.set(user, [...(deletes.get(user) ?? []), Number(request.url.slice('/plants/'.length))]);
      } else wrong++;
    }
    t.equal(wrong, 0, 'every request is one of the four calls, with one of the users tokens');
    const share = (count: number) => count / seen.length;
    t.ok(Math.abs(share(byKind.first) - 0.6) < 0.04, `first pages ${share(byKind.first)}`);
    t.ok(Math.abs(share(byKind.cursor) - 0.25) < 0.04, `cursor pages ${share(byKind.cursor)}`);
    t.ok(Math.abs(share(byKind.create) - 0.1) < 0.03, `creates ${share(byKind.create)}`);
    t.ok(Math.abs(share(byKind.delete) - 0.05) < 0.02, `deletes ${share(byKind.delete)}`);
    const top = share(users.get(MIX_USERS[0]!) ?? 0);
    t.ok(Math.abs(top - zipfWeights(MIX_USERS.length)[0]!) < 0.04, `the busiest user has ${top} of the calls`);
    t.ok((users.get(MIX_USERS[0]!) ?? 0) > (users.get(MIX_USERS[9]!) ?? 0) * 3, 'rank 1 far above rank 10');
    t.ok(takenInOrder(creates, 1e13), 'creates: fresh ids in order, each once');
    t.ok(
      [...deletes.values()].every((ids) => takenInOrder(ids, 1e13 + DELETE_ID_OFFSET)),
      "deletes: each user's own ids in order from deleteFirstId, each once",
    );
  });

  t.test(`${name}: creates that sort first count down`, { skip: available ? false : `${name} is not installed` }, async (t) => {
    const { url, seen } = await recorder(t);
    await run({ url, token: 'bench', tokens, connections: 2, seconds: 1, plan: { kind: 'post', firstId: -1e13, step: -1 } });
    const ids = seen.map((request) => (JSON.parse(request.body) as { id: number }).id);
    t.ok(ids.length > 100);
    t.ok(
      seen.every((request) => request.authorization === 'Bearer bench'),
      "the bench user's token",
    );
    t.ok(takenInOrder(ids, -1e13, -1), 'each new id below all before');
  });
}
