// persist in Node: a storage of your own keeps the plants for the next handlers; without localStorage, or with a stored text it cannot read, the mock says so.
import { getResponse } from 'msw';
import t from 'tap';
import { plantStoreHandlers, type MockStorage } from '@plant-store/client/mock';

const BASE = 'http://plant-store.mock';
const memory = (): MockStorage & { items: Map<string, string> } => {
  const items = new Map<string, string>();
  return { items, getItem: (key) => items.get(key) ?? null, setItem: (key, value) => void items.set(key, value) };
};
const send = (handlers: ReturnType<typeof plantStoreHandlers>, method: string, path: string, body?: string) =>
  getResponse(
    handlers,
    new Request(BASE + path, {
      method,
      headers: { authorization: 'Bearer pst_a', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body }),
    }),
  );

t.test('a storage of your own: the next handlers (a reload) start with the plants, under the key you gave', async (t) => {
  const storage = memory();
  const first = plantStoreHandlers({ baseUrl: BASE, tokens: ['pst_a'], persist: { storage, key: 'mine' } });
  t.equal((await send(first, 'POST', '/plants', '{"id":9223372036854775807,"name":"Max","tag":"big"}'))?.status, 200);
  t.same([...storage.items.keys()], ['mine']);
  const again = plantStoreHandlers({ baseUrl: BASE, tokens: ['pst_a'], persist: { storage, key: 'mine' } });
  t.equal(await (await send(again, 'GET', '/plants'))?.text(), '[{"name":"Max","tag":"big"}]');
  t.equal((await send(again, 'DELETE', '/plants/9223372036854775807'))?.status, 204);
  const third = plantStoreHandlers({ baseUrl: BASE, tokens: ['pst_a'], persist: { storage, key: 'mine' } });
  t.equal(await (await send(third, 'GET', '/plants'))?.text(), '[]', 'the delete was kept too');
});

t.test("persist: true without localStorage, and a stored text that is not the mock's, are refused naming the cause", async (t) => {
  // Node 25 and newer have a localStorage of their own (experimental): this is about a process without one.
  const own = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
  Object.defineProperty(globalThis, 'localStorage', { value: undefined, configurable: true, writable: true });
  t.teardown(() => {
    if (own === undefined) delete (globalThis as { localStorage?: unknown }).localStorage;
    else Object.defineProperty(globalThis, 'localStorage', own);
  });
  t.throws(() => plantStoreHandlers({ baseUrl: BASE, tokens: ['pst_a'], persist: true }), {
    name: 'TypeError',
    message: /there is none here \(not a browser\); pass persist: \{ storage \}/,
  });
  const storage = memory();
  storage.setItem('plant-store-mock:http://plant-store.mock', 'not json');
  t.throws(() => plantStoreHandlers({ baseUrl: BASE, tokens: ['pst_a'], persist: { storage } }), {
    message: /stored under "plant-store-mock:http:\/\/plant-store.mock" cannot be read .*remove that item to start empty/,
  });
  t.equal(storage.getItem('plant-store-mock:http://plant-store.mock'), 'not json', 'and left as it was');
});
