// GET /plants: Link pagination walked to the end (each of this run's plants once, in id order), and
// the other user can neither see nor delete this user's plants (404, the same body as a missing plant).
import { seen, type Run, type Verdict } from '../run.js';
import type { Exchange } from '../http.js';

const PAGE = 2;
const MAX_PAGES = 2000;
const NEXT = /^<([^>]+)>;\s*rel="next"$/;

interface Walk {
  names: string[];
  pages: number;
  problem?: string;
}

/** Follows rel="next" from /plants?limit=`limit` to the last page. */
async function walk(run: Run, token: string, limit: number): Promise<Walk> {
  const names: string[] = [];
  let path = `/plants?limit=${limit}`;
  let pages = 0;
  for (;;) {
    if (++pages > MAX_PAGES) return { names, pages, problem: `more than ${MAX_PAGES} pages; give conformance runs a user of their own` };
    const exchange: Exchange = await run.http.send('GET', path, { token });
    if (exchange.status !== 200) return { names, pages, problem: `page ${pages} (${path}) answered ${seen(exchange)}` };
    const items = JSON.parse(exchange.body) as { name?: unknown }[];
    if (items.length > limit) return { names, pages, problem: `page ${pages} has ${items.length} plants, more than limit=${limit}` };
    names.push(...items.map((item) => String(item.name)));
    const link = exchange.headers.link;
    if (link === undefined) break;
    const next = NEXT.exec(link)?.[1];
    if (next === undefined) return { names, pages, problem: `page ${pages} has a Link header that is not <URL>; rel="next": ${link}` };
    const url: URL = new URL(next, run.http.baseUrl + path);
    // The token goes only where the run was pointed.
    if (url.origin !== new URL(run.http.baseUrl).origin) return { names, pages, problem: `page ${pages} links to another origin: ${next}` };
    path = url.pathname + url.search;
  }
  return { names, pages };
}

export async function listingChecks(run: Run): Promise<void> {
  const labels = ['page a', 'page b', 'page c', 'page d', 'page e'];
  const made = labels.map((label) => run.name(label));
  const mine = (names: string[]) => names.filter((name) => name.startsWith(run.name('page')));

  await run.check(
    'GET /plants',
    `walks Link pages of ${PAGE} to the end: each plant once, in ascending id order`,
    made.join(', '),
    async (): Promise<Verdict> => {
      // Created in descending id order, so the order of the walk is the service's, not the order of creation.
      for (let index = labels.length - 1; index >= 0; index--) await run.create(run.id(20 + index), made[index]!, 'conformance');
      const result = await walk(run, run.options.token, PAGE);
      const found = mine(result.names);
      const actual = `${result.pages} pages; this run's plants: ${found.join(', ') || '(none)'}${result.problem ? `; ${result.problem}` : ''}`;
      return { ok: result.problem === undefined && JSON.stringify(found) === JSON.stringify(made), actual };
    },
  );

  await run.check('GET /plants', "does not show this user's plants to another user", "none of them in the other user's list", async () => {
    const result = await walk(run, run.options.otherToken, 1000);
    const found = mine(result.names);
    return {
      ok: result.problem === undefined && found.length === 0,
      actual: `${found.length} of them${found.length > 0 ? `: ${found.join(', ')}` : ''}${result.problem ? `; ${result.problem}` : ''}`,
    };
  });

  await run.check(
    'DELETE /plants/{id}',
    "does not let another user delete this user's plant",
    '404 with the body of a missing plant, and the plant still there',
    async () => {
      const id = run.id(30);
      const missing = await run.remove(id); // before it exists: what "no such plant" looks like
      await run.create(id, run.name('kept'), 'conformance');
      const other = await run.remove(id, run.options.otherToken);
      const still = await run.remove(id);
      const ok = missing.status === 404 && other.status === 404 && other.body === missing.body && still.status === 204;
      return {
        ok,
        actual: `the other user's DELETE: ${seen(other)}; a missing plant: ${seen(missing)}; then the owner's DELETE: ${seen(still)}`,
      };
    },
  );
}
