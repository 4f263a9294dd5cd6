// The weight an Accept header gives a media type: the most specific matching range decides, malformed weights are left out.
import t from 'tap';
import { acceptQuality } from '../../src/negotiation/list-representation.js';

const JSON_TYPE = 'application/json';

t.test('the most specific matching range gives the weight; none matching is 0', async (t) => {
  const cases: Array<[string, number]> = [
    ['application/json', 1],
    ['APPLICATION/JSON', 1],
    [' application/json ; q=0.5 ', 0.5],
    ['*/*;q=0.1', 0.1],
    ['application/*;q=0.3, */*;q=0.1', 0.3],
    ['*/*;q=0.1, application/*;q=0.3, application/json;q=0.7', 0.7],
    ['application/json;q=0, */*', 0],
    ['application/json;charset=utf-8;q=0.2', 0.2],
    ['text/html, application/xml', 0],
    ['', 0],
    ['application/jsonx', 0],
    ['application/json;q=1.000', 1],
    ['application/json;q=0.', 0],
    ['application/json;Q=0.25', 0.25],
  ];
  for (const [accept, q] of cases) t.equal(acceptQuality(accept, JSON_TYPE), q, accept);
});

t.test('an element with a malformed weight is left out, as if not sent', async (t) => {
  for (const q of ['2', '1.5', '-0.1', '0.1234', 'abc', '']) {
    t.equal(acceptQuality(`application/json;q=${q}`, JSON_TYPE), 0, `q=${q}`);
    t.equal(acceptQuality(`application/json;q=${q}, */*;q=0.4`, JSON_TYPE), 0.4, `q=${q} with a fallback`);
  }
});
