// Creating and deleting plants: success, the idempotent retry, 409, 404, and the refusals (400, 413, 415).
import { isJson } from '../json-differences.js';
import { seen, status, type Run } from '../run.js';

export async function plantChecks(run: Run): Promise<void> {
  const name = run.name('first');
  await run.check(
    'POST /plants',
    'creates a plant, and Location names it',
    `200 {"name":"${name}","tag":"conformance"} with Location: /plants/${run.id(0)}`,
    async () => {
      const exchange = await run.create(run.id(0), name, 'conformance');
      return {
        ok:
          exchange.status === 200 &&
          isJson(exchange.body, { name, tag: 'conformance' }) &&
          exchange.headers.location === `/plants/${run.id(0)}`,
        actual: seen(exchange, ['Location']),
      };
    },
  );
  await run.check('POST /plants', 'leaves out a tag that was not given', '200 with the name and no tag', async () => {
    const exchange = await run.create(run.id(1), run.name('untagged'));
    return { ok: exchange.status === 200 && isJson(exchange.body, { name: run.name('untagged') }), actual: seen(exchange) };
  });
  await run.check('POST /plants', 'answers a retried create again', '200 with the same plant', async () => {
    const exchange = await run.create(run.id(0), name, 'conformance');
    return { ok: exchange.status === 200 && isJson(exchange.body, { name, tag: 'conformance' }), actual: seen(exchange) };
  });
  await run.check('POST /plants', 'refuses the same id with other content', '409', async () =>
    status(await run.create(run.id(0), run.name('other'), 'conformance'), 409),
  );

  const refused: [string, string, bigint | undefined][] = [
    ['a name of 201 characters', `{"id":${run.id(2)},"name":"${'n'.repeat(201)}"}`, run.id(2)],
    ['an empty name', `{"id":${run.id(3)},"name":""}`, run.id(3)],
    ['a name that is a number', `{"id":${run.id(4)},"name":5}`, run.id(4)],
    ['a tag of 101 characters', `{"id":${run.id(5)},"name":"x","tag":"${'t'.repeat(101)}"}`, run.id(5)],
    ['an unknown property', `{"id":${run.id(6)},"name":"x","colour":"green"}`, run.id(6)],
    ['no name', `{"id":${run.id(7)}}`, run.id(7)],
    ['an id written as a string', `{"id":"${run.id(8)}","name":"x"}`, undefined],
    ['a fractional id', `{"id":1.5,"name":"x"}`, undefined],
    ['an id beyond int64', '{"id":9223372036854775808,"name":"x"}', undefined],
    ['malformed JSON', `{"id":${run.id(9)},"name":`, undefined],
  ];
  for (const [what, body, id] of refused) {
    await run.check('POST /plants', `refuses ${what}`, '400', async () => status(await run.post(body, id), 400));
  }
  await run.check('POST /plants', 'refuses a body over 16 KiB', '413', async () => {
    const body = `{"id":${run.id(10)},"name":"x"${' '.repeat(17 * 1024)}}`;
    return status(await run.post(body, run.id(10)), 413);
  });
  await run.check('POST /plants', 'refuses a body that is not JSON', '415', async () =>
    status(await run.post(`{"id":${run.id(11)},"name":"x"}`, run.id(11), undefined, 'text/plain'), 415),
  );

  for (const [what, query] of [
    ['limit 0', 'limit=0'],
    ['limit 1001', 'limit=1001'],
    ['a limit that is not a number', 'limit=ten'],
    ['a malformed cursor', 'cursor=%21%21'],
  ]) {
    await run.check('GET /plants', `refuses ${what}`, '400', async () =>
      status(await run.http.send('GET', `/plants?${query}`, { token: run.options.token }), 400),
    );
  }
  for (const [what, id] of [
    ['an id that is not a number', 'ten'],
    ['a fractional id', '1.5'],
    ['an id beyond int64', '9223372036854775808'],
  ]) {
    await run.check('DELETE /plants/{id}', `refuses ${what}`, '400', async () =>
      status(await run.http.send('DELETE', `/plants/${id}`, { token: run.options.token }), 400),
    );
  }
  // openapi.yaml declares 413 and 415 for DELETE too: a body, if one is sent, is held to the same rules.
  await run.check('DELETE /plants/{id}', 'refuses a body over 16 KiB', '413', async () =>
    status(
      await run.http.send('DELETE', `/plants/${run.id(13)}`, { token: run.options.token, body: `{"pad":"${'x'.repeat(17 * 1024)}"}` }),
      413,
    ),
  );
  await run.check('DELETE /plants/{id}', 'refuses a body that is not JSON', '415', async () =>
    status(await run.http.send('DELETE', `/plants/${run.id(13)}`, { token: run.options.token, body: 'x', contentType: 'text/plain' }), 415),
  );
  await run.check('DELETE /plants/{id}', 'answers 404 for an id the user has no plant with', '404', async () =>
    status(await run.remove(run.id(12)), 404),
  );
  await run.check('DELETE /plants/{id}', 'deletes a plant, then it is gone', '204 with no body, then 404', async () => {
    const first = await run.remove(run.id(1));
    const second = await run.remove(run.id(1));
    return { ok: first.status === 204 && first.body === '' && second.status === 404, actual: `${seen(first)}, then ${seen(second)}` };
  });
}
