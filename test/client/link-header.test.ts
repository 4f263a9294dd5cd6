// nextLink finds rel="next" in RFC 8288 Link headers, as the service and others write them.
import t from 'tap';
import { nextLink } from '../../clients/typescript/src/link-header.js';

t.test("the service's own header", async (t) => {
  t.equal(nextLink('</plants?limit=20&cursor=djE6NDI>; rel="next"'), '/plants?limit=20&cursor=djE6NDI');
});

t.test('other shapes RFC 8288 allows', async (t) => {
  t.equal(nextLink('<https://a.example/p?page=2>;rel=next'), 'https://a.example/p?page=2', 'unquoted, no spaces');
  t.equal(nextLink('</p?1>; rel="prev", </p?3>; rel="next"'), '/p?3', 'several links');
  t.equal(nextLink('</p?3>; title="a, b; c"; rel="prev next"'), '/p?3', 'several relation types and a quoted comma');
  t.equal(nextLink('</p?3>; REL="Next"'), '/p?3', 'case-insensitive');
});

t.test('no next page', async (t) => {
  t.equal(nextLink(null), undefined);
  t.equal(nextLink(''), undefined);
  t.equal(nextLink('</p?1>; rel="prev"'), undefined);
  t.equal(nextLink('</p?1>; rel="nextish"'), undefined);
});
