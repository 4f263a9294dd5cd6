// An operation of the contract the mock does not implement answers 501 with the Error shape naming it, never a
// misleading 405 or 404: proven with a copy of openapi.yaml that declares operations the mock has never heard of.
import { getResponse } from 'msw';
import t from 'tap';
import { plantStoreHandlers } from '@plant-store/client/mock';
import { openApiDocument } from '../../generated/openapi.js';

const base = 'http://plant-store.mock';
const auth = { authorization: 'Bearer alice-token' };

/** openapi.yaml with two operations more: one on a path the mock knows, one on a path of its own. */
function grownContract(): Record<string, unknown> {
  const contract = structuredClone(openApiDocument) as { paths: Record<string, Record<string, unknown>> };
  const answers = { responses: { '200': { description: 'A plant.' } } };
  contract.paths['/plants/{id}']!.get = { operationId: 'getPlant', ...answers };
  contract.paths['/gardens'] = { post: { operationId: 'addGarden', ...answers } };
  return contract;
}

const answer = async (contract: Record<string, unknown> | undefined, method: string, path: string) => {
  const handlers = plantStoreHandlers({ baseUrl: base, tokens: ['alice-token'], ...(contract === undefined ? {} : { contract }) });
  const response = await getResponse(handlers, new Request(base + path, { method, headers: auth }));
  if (response === undefined) return undefined;
  return { status: response.status, type: response.headers.get('content-type'), body: (await response.text()) || undefined };
};

t.test('a declared operation the mock lacks answers 501, naming it', async (t) => {
  const contract = grownContract();
  const error = (message: string) => ({
    status: 501,
    type: 'application/json; charset=utf-8',
    body: JSON.stringify({ error: 501, message }),
  });
  t.same(
    await answer(contract, 'GET', '/plants/7'),
    error('The mock does not implement getPlant (GET /plants/{id}) of openapi.yaml yet.'),
    'not "405 use DELETE"',
  );
  t.same(
    await answer(contract, 'POST', '/gardens'),
    error('The mock does not implement addGarden (POST /gardens) of openapi.yaml yet.'),
    'not "404 there is no /gardens here"',
  );
  // What the mock does implement, and what the contract does not declare, answer as before.
  t.equal((await answer(contract, 'DELETE', '/plants/7'))?.status, 404, "DELETE /plants/{id} is still the mock's own");
  t.equal((await answer(contract, 'GET', '/plants'))?.status, 200, "GET /plants is still the mock's own");
  t.equal((await answer(contract, 'PUT', '/plants/7'))?.status, 405, 'a method neither declares is still 405');
  t.equal((await answer(contract, 'GET', '/plants/7/'))?.status, 404, 'the path is matched exactly, as the service matches it');
});

t.test("with the package's own contract, every operation is the mock's own: nothing answers 501", async (t) => {
  t.equal((await answer(undefined, 'GET', '/plants/7'))?.status, 405);
  t.equal((await answer(undefined, 'POST', '/gardens'))?.status, 404);
});
