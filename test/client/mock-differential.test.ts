// The mock and the service, side by side: the same requests, for two users, get the same status, headers that matter and body, Error messages word for word (one catalogue, one parser).
import { getResponse } from 'msw';
import t from 'tap';
import { plantStoreHandlers } from '@plant-store/client/mock';
import { buildTestApp, tokenFor } from '../helpers/app.js';
import { listen } from '../helpers/checked-fetch.js';

interface Sent {
  method: string;
  path: string;
  body?: string;
  type?: string;
  encoding?: string;
  accept?: string;
  token?: 'alice' | 'bob' | 'unknown' | 'none';
  /** Sent as the Authorization header instead of the token's. */
  authorization?: string;
}

const big = 9223372036854775807n;
const REQUESTS: Sent[] = [
  { method: 'POST', path: '/plants', body: `{"id":${big},"name":"Fern","tag":"green"}` },
  { method: 'POST', path: '/plants', body: `{"id":${big - 1n},"name":"Fern"}` },
  { method: 'POST', path: '/plants', body: '{"id":9007199254740993,"name":"Moss"}' },
  { method: 'POST', path: '/plants', body: '{"id":9007199254740992,"name":"Moss 2"}' },
  { method: 'POST', path: '/plants', body: '{"id":-1,"name":"Cactus"}' },
  { method: 'POST', path: '/plants', body: `{"id":${big},"name":"Fern","tag":"green"}` },
  { method: 'POST', path: '/plants', body: `{"id":${big},"name":"Fern"}` },
  { method: 'POST', path: '/plants', body: '{"id":1,"name":"x","tag":""}' },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":""}' },
  { method: 'POST', path: '/plants', body: `{"id":2,"name":"${'n'.repeat(201)}"}` },
  { method: 'POST', path: '/plants', body: `{"id":2,"name":"x","tag":"${'t'.repeat(101)}"}` },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":"a\\u0007b"}' },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":5}' },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":null}' },
  { method: 'POST', path: '/plants', body: '{"id":"2","name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":2.5,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":2.0,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":2e0,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":true,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":null,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":9223372036854775808,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":-9223372036854775809,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":2}' },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":"x","colour":"green"}' },
  { method: 'POST', path: '/plants', body: '[]' },
  { method: 'POST', path: '/plants', body: '"x"' },
  { method: 'POST', path: '/plants', body: '{"id":2,' },
  { method: 'POST', path: '/plants', body: '' },
  { method: 'POST', path: '/plants' },
  { method: 'POST', path: '/plants', body: '{"id":-0,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":1.0,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":1e3,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":1.5,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":6,"name":1.5}' },
  { method: 'POST', path: '/plants', body: '{"id":6,"name":"x","tag":2.0}' },
  { method: 'POST', path: '/plants', body: '{"id":9223372036854775808,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":4,"name":"x","name":"y"}' },
  { method: 'POST', path: '/plants', body: '{"id":5,"name":"x","name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":"x"}', type: 'text/plain' },
  { method: 'POST', path: '/plants', body: '', type: 'text/plain' },
  { method: 'POST', path: '/plants', body: 'x'.repeat(16 * 1024 + 1), type: 'text/plain' },
  { method: 'GET', path: '/PLANTS' },
  { method: 'GET', path: '/plants/' },
  { method: 'POST', path: '/healthz', body: '{}' },
  { method: 'DELETE', path: '/openapi.json' },
  { method: 'GET', path: '/plants', authorization: 'Bearer\tpst_x' },
  { method: 'GET', path: '/plants', authorization: 'Bearer a, Bearer b' },
  { method: 'GET', path: '/plants', authorization: 'Basic eDp5' },
  // TextDecoder drops a leading byte-order mark unless told not to; the service reads it, and JSON has none.
  { method: 'POST', path: '/plants', body: '\uFEFF{"id":2,"name":"x"}' },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":"x"}', type: 'application/json; charset=latin1' },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":"x"}', encoding: 'gzip' },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":"x"}', encoding: 'identity' },
  { method: 'POST', path: '/plants', body: `{"id":2,"name":"x"${' '.repeat(17 * 1024)}}` },
  { method: 'POST', path: '/plants', body: '{"id":3,"name":"x"}', token: 'none' },
  { method: 'POST', path: '/plants', body: '{"id":3,"name":"x"}', token: 'unknown' },
  { method: 'GET', path: '/plants' },
  { method: 'GET', path: '/plants', accept: 'application/vnd.plant-store.listing+json' },
  { method: 'GET', path: '/plants', accept: 'application/json, application/vnd.plant-store.listing+json;q=0.5' },
  { method: 'GET', path: '/plants', accept: '*/*' },
  { method: 'GET', path: '/plants', token: 'bob' },
  { method: 'GET', path: '/plants?limit=1000' },
  { method: 'GET', path: '/plants?limit=0' },
  { method: 'GET', path: '/plants?limit=1001' },
  { method: 'GET', path: '/plants?limit=1.5' },
  { method: 'GET', path: '/plants?limit=%2B5' },
  { method: 'GET', path: '/plants?limit=ten' },
  { method: 'GET', path: '/plants?cursor=' },
  { method: 'GET', path: '/plants?cursor=%21%21' },
  { method: 'GET', path: '/plants?cursor=abc' },
  { method: 'GET', path: '/plants', token: 'none' },
  { method: 'GET', path: '/plants', token: 'unknown' },
  { method: 'DELETE', path: `/plants/${big}`, token: 'bob' },
  { method: 'DELETE', path: '/plants/ten' },
  { method: 'DELETE', path: '/plants/1.5' },
  { method: 'DELETE', path: '/plants/-0' },
  { method: 'DELETE', path: '/plants/007' },
  { method: 'DELETE', path: '/plants/9223372036854775808' },
  { method: 'DELETE', path: '/plants/12345', body: 'x', type: 'text/plain' },
  { method: 'DELETE', path: '/plants/-1', body: '', type: 'text/plain;charset=UTF-8' },
  { method: 'DELETE', path: '/plants/12345' },
  { method: 'DELETE', path: `/plants/${big}` },
  { method: 'DELETE', path: `/plants/${big}` },
  { method: 'DELETE', path: '/plants/9007199254740993' },
  { method: 'GET', path: '/plants', accept: 'application/vnd.plant-store.listing+json' },
  { method: 'GET', path: '/healthz', token: 'none' },
  // No route: a method the path does not have (405), a path nothing serves (404).
  { method: 'PUT', path: '/plants', body: '{}' },
  { method: 'PATCH', path: '/plants/1', body: '{}' },
  { method: 'GET', path: '/plants/1' },
  { method: 'DELETE', path: '/plants' },
  { method: 'GET', path: '/nothing/here' },
  { method: 'GET', path: '/plants/1/leaves' },
  { method: 'DELETE', path: `/plants/${'9'.repeat(80)}/x` },
  // A conflict, then the identical retry, then a delete of what is not there: the texts name the id.
  { method: 'POST', path: '/plants', body: '{"id":42,"name":"Ivy"}' },
  { method: 'POST', path: '/plants', body: '{"id":42,"name":"Ivy","tag":"climber"}' },
  { method: 'POST', path: '/plants', body: '{"id":42,"name":"Ivy"}' },
  { method: 'DELETE', path: '/plants/43' },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":"x"}', type: 'application/json; charset="utf-16"' },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":"x"}', type: `text/${'x'.repeat(80)}` },
  { method: 'POST', path: '/plants', body: '{"id":2,"name":"x"}', encoding: 'br' },
];

/** Ids that differ per deployment: request ids and the cursor's opaque text are left out of the comparison. */
const HEADERS = ['content-type', 'location', 'www-authenticate', 'allow', 'accept-encoding'];

t.test('the mock answers as the service does', async (t) => {
  const app = await buildTestApp(t);
  const live = await listen(app);
  const tokens = { alice: await tokenFor(app, 'alice'), bob: await tokenFor(app, 'bob'), unknown: `pst_${'u'.repeat(43)}`, none: '' };
  const mockBase = 'http://plant-store.mock';
  const handlers = plantStoreHandlers({ baseUrl: mockBase, tokens: { [tokens.alice]: 'alice', [tokens.bob]: 'bob' } });

  for (const sent of REQUESTS) {
    const token = tokens[sent.token ?? 'alice'];
    const init = (): RequestInit => ({
      method: sent.method,
      headers: {
        ...(sent.authorization !== undefined
          ? { authorization: sent.authorization }
          : token === ''
            ? {}
            : { authorization: `Bearer ${token}` }),
        ...(sent.body === undefined ? {} : { 'content-type': sent.type ?? 'application/json' }),
        ...(sent.encoding === undefined ? {} : { 'content-encoding': sent.encoding }),
        ...(sent.accept === undefined ? {} : { accept: sent.accept }),
      },
      ...(sent.body === undefined ? {} : { body: sent.body }),
    });
    const seen = async (response: Response | undefined) => {
      if (response === undefined) return { status: 0 };
      const headers = Object.fromEntries(HEADERS.map((name) => [name, response.headers.get(name)]));
      const link = response.headers.get('link') === null ? null : 'rel="next"';
      const text = await response.text();
      const body = response.status >= 400 ? (JSON.parse(text) as { error: number; message: string }) : text;
      return { status: response.status, headers, link, body };
    };
    const fromService = await seen(await fetch(live + sent.path, init()));
    const fromMock = await seen(await getResponse(handlers, new Request(mockBase + sent.path, init())));
    t.same(fromMock, fromService, `${sent.method} ${sent.path} ${sent.body?.slice(0, 60) ?? ''} (${sent.token ?? 'alice'})`);
  }
});
