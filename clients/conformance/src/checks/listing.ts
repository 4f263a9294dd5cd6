// GET /plants: Link pagination walked to the end in both representations (the plain Plant array and the
// listing media type with exact ids: the same pages, the same Link), the representation chosen by Accept,
// and the other user can neither see nor delete this user's plants (404, the same body as a missing plant).
import type { JsonObject } from '../contract-file.js';
import { parseExactJson } from '../exact-json.js';
import type { Exchange } from '../http.js';
import { seen, type Run, type Verdict } from '../run.js';

export const LISTING = 'application/vnd.plant-store.listing+json';
const PAGE = 2;
const MAX_PAGES = 2000;
const NEXT = /^<([^>]+)>;\s*rel="next"$/;
/** Link is a list of link-values (RFC 8288): the page's rel="next" may share it with others, such as rel="deprecation". */
const linkValues = (link: string) => link.split(/,\s*(?=<)/).map((value) => value.trim());
const isNext = (value: string) => /;\s*rel\s*=\s*"?[^";,]*\bnext\b/i.test(value);

interface Item {
  id?: unknown;
  name?: unknown;
}

interface Page {
  contentType: string;
  items: Item[];
  link: string | undefined;
}

export interface Walk {
  pages: Page[];
  problem?: string;
}

const mediaType = (exchange: Exchange) => (exchange.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();

/** Follows rel="next" from /plants?limit=`limit` to the last page, asking for `accept` on each. */
export async function walk(run: Run, token: string, limit: number, accept?: string, ignoreInterrupt = false): Promise<Walk> {
  const pages: Page[] = [];
  let path = `/plants?limit=${limit}`;
  for (;;) {
    if (pages.length >= MAX_PAGES) return { pages, problem: `more than ${MAX_PAGES} pages; give conformance runs a user of their own` };
    const exchange: Exchange = await run.http.send('GET', path, { token, accept }, { ignoreInterrupt });
    if (exchange.status !== 200) return { pages, problem: `page ${pages.length + 1} (${path}) answered ${seen(exchange)}` };
    let items: Item[];
    try {
      items = parseExactJson(exchange.body) as Item[];
      if (!Array.isArray(items)) throw new Error('not an array');
    } catch {
      return { pages, problem: `page ${pages.length + 1} is not a JSON array: ${exchange.body.slice(0, 80)}` };
    }
    const link = exchange.headers.link;
    pages.push({ contentType: mediaType(exchange), items, link });
    if (items.length > limit) return { pages, problem: `page ${pages.length} has ${items.length} plants, more than limit=${limit}` };
    const nexts = link === undefined ? [] : linkValues(link).filter(isNext);
    if (nexts.length === 0) break;
    const next = nexts.length === 1 ? NEXT.exec(nexts[0]!)?.[1] : undefined;
    if (next === undefined) return { pages, problem: `page ${pages.length} has a Link header without one <URL>; rel="next": ${link}` };
    const url: URL = new URL(next, run.http.baseUrl + path);
    // The token goes only where the run was pointed.
    if (url.origin !== new URL(run.http.baseUrl).origin) return { pages, problem: `page ${pages.length} links to another origin: ${next}` };
    path = url.pathname + url.search;
  }
  return { pages };
}

const items = (result: Walk) => result.pages.flatMap((page) => page.items);
const ids = (list: Item[]) => list.map((item) => String(item.id)).join(', ');

export async function listingChecks(run: Run, contract: JsonObject): Promise<void> {
  const labels = ['page a', 'page b', 'page c', 'page d', 'page e'];
  const mine = (result: Walk) => items(result).filter((item) => run.isMine(item.name));
  // Every plant this run has once the pages are made, in ascending int64 order: the pages must show exactly these of this run.
  let expected: { id: bigint; name?: string }[] = [];

  let plain: Walk = { pages: [] };
  await run.check(
    'GET /plants',
    `walks Link pages of ${PAGE} to the end: each plant once, in ascending id order`,
    "this run's plants, each once, in ascending id order",
    async (): Promise<Verdict> => {
      // Created in descending id order, so the order of the walk is the service's, not the order of creation.
      const made = [];
      for (let index = labels.length - 1; index >= 0; index--)
        made.push(await run.create(run.id(20 + index), run.name(labels[index]!), 'conformance'));
      const refused = made.find((exchange) => exchange.status !== 200);
      if (refused !== undefined) return { ok: false, actual: `the plants to list could not be created: ${seen(refused)}` };
      expected = [...run.created.values()]
        .filter((plant) => plant.token === run.options.token && plant.name !== undefined)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const expectedNames = expected.map((plant) => plant.name!);
      plain = await walk(run, run.options.token, PAGE);
      const found = mine(plain).map((item) => String(item.name));
      const same = JSON.stringify(found) === JSON.stringify(expectedNames);
      const actual = `${plain.pages.length} pages; this run's plants: ${found.join(', ') || '(none)'}${same ? '' : ` (expected ${expectedNames.join(', ')})`}${plain.problem ? `; ${plain.problem}` : ''}`;
      return { ok: plain.problem === undefined && same, actual };
    },
  );

  let listing: Walk = { pages: [] };
  await run.check('GET /plants', `answers ${LISTING} when Accept asks for it, on every page`, `every page ${LISTING}`, async () => {
    listing = await walk(run, run.options.token, PAGE, LISTING);
    const types = [...new Set(listing.pages.map((page) => page.contentType))];
    return {
      ok: listing.problem === undefined && listing.pages.length > 0 && types.length === 1 && types[0] === LISTING,
      actual: `${listing.pages.length} pages of ${types.join(', ') || '(none)'}${listing.problem ? `; ${listing.problem}` : ''}`,
    };
  });

  await run.check(
    'GET /plants',
    `lists this run's plants with their exact ids (2^53 + 1 and the int64 extremes among them) in ${LISTING}`,
    'each id as created, in ascending order',
    async () => {
      const found = mine(listing);
      const wanted = expected.map((plant) => `${plant.id} ${String(plant.name)}`);
      const got = found.map((item) => `${typeof item.id === 'bigint' ? item.id : JSON.stringify(item.id)} ${String(item.name)}`);
      const wrong = wanted.filter((entry, index) => got[index] !== entry);
      return {
        ok: listing.problem === undefined && wanted.length >= labels.length && JSON.stringify(got) === JSON.stringify(wanted),
        actual: `ids ${ids(found) || '(none)'}${wrong.length > 0 ? `; not as created: ${wrong.join(', ')}` : ''}${listing.problem ? `; ${listing.problem}` : ''}`,
      };
    },
  );

  await run.check(
    'GET /plants',
    'gives both representations the same pages and the same Link',
    'equal pages and Link headers',
    async () => {
      const names = (page: Page) => page.items.map((item) => String(item.name)).join('|');
      const differences = [];
      for (let index = 0; index < Math.max(plain.pages.length, listing.pages.length); index++) {
        const [a, b] = [plain.pages[index], listing.pages[index]];
        if (a === undefined || b === undefined) differences.push(`page ${index + 1} is in one representation only`);
        else if (names(a) !== names(b)) differences.push(`page ${index + 1} holds other plants`);
        else if (a.link !== b.link) differences.push(`page ${index + 1} Link ${a.link ?? '(none)'} against ${b.link ?? '(none)'}`);
      }
      return {
        ok: differences.length === 0 && plain.pages.length > 0,
        actual: differences.length === 0 ? `${plain.pages.length} equal pages` : differences.slice(0, 5).join('; '),
      };
    },
  );

  await acceptChecks(run, contract);

  // Both representations: the listing is another path through the service, and the one with ids.
  for (const accept of [undefined, LISTING]) {
    const what = accept === undefined ? 'list' : `${LISTING} list`;
    await run.check(
      'GET /plants',
      `does not show this user's plants to another user (${what})`,
      `none of them in the other user's ${what}`,
      async () => {
        const result = await walk(run, run.options.otherToken, 1000, accept);
        const found = mine(result).map((item) => String(item.name));
        return {
          ok: result.problem === undefined && found.length === 0,
          actual: `${found.length} of them${found.length > 0 ? `: ${found.join(', ')}` : ''}${result.problem ? `; ${result.problem}` : ''}`,
        };
      },
    );
  }

  await run.check(
    'POST /plants',
    "lets another user create a plant with this user's id, changing neither user's plant",
    "200 for the other user, and each user's plant as that user made it",
    async () => {
      const id = run.id(31);
      const own = await run.create(id, run.name('ids are per user'), 'conformance');
      const other = await run.create(id, run.name('the same id, another user'), 'other', run.options.otherToken);
      const named = async (token: string) =>
        (await walk(run, token, 1000, LISTING)).pages
          .flatMap((page) => page.items)
          .find((item) => typeof item.id === 'bigint' && item.id === id)?.name;
      const [mineNow, theirs] = [await named(run.options.token), await named(run.options.otherToken)];
      const gone = await run.remove(id, run.options.otherToken);
      return {
        ok:
          own.status === 200 &&
          other.status === 200 &&
          mineNow === run.name('ids are per user') &&
          theirs === run.name('the same id, another user') &&
          gone.status === 204,
        actual: `this user's create: ${seen(own)}; the other user's, same id: ${seen(other)}; then this user's plant ${JSON.stringify(mineNow ?? null)}, the other's ${JSON.stringify(theirs ?? null)}; the other user's DELETE: ${seen(gone)}`,
      };
    },
  );

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

/**
 * The representation follows Accept as openapi.yaml's GET /plants says: the listing only when named with a
 * weight at least that of application/json, wildcards give application/json, and an Accept nothing satisfies
 * gets application/json (or 406, if the contract declares it). Every answer says Vary: Accept.
 */
async function acceptChecks(run: Run, contract: JsonObject): Promise<void> {
  const responses =
    (contract.paths as Record<string, Record<string, { responses?: JsonObject }>> | undefined)?.['/plants']?.get?.responses ?? {};
  const unsatisfiable = '406' in responses ? '406' : 'application/json';
  const cases: [string, string][] = [
    ['*/*', 'application/json'],
    ['application/json', 'application/json'],
    [`application/json;q=0.5, ${LISTING}`, LISTING],
    [`${LISTING};q=0.5, application/json`, 'application/json'],
    ['application/*', 'application/json'],
    ['text/html', unsatisfiable],
  ];
  await run.check(
    'GET /plants',
    'chooses the representation by Accept, with Vary: Accept',
    cases.map(([accept, answer]) => `${accept} -> ${answer}`).join('; '),
    async () => {
      const got: string[] = [];
      let ok = true;
      for (const [accept, answer] of cases) {
        const exchange = await run.http.send('GET', '/plants?limit=1', { token: run.options.token, accept });
        const result = answer === '406' ? String(exchange.status) : exchange.status === 200 ? mediaType(exchange) : seen(exchange);
        const vary = exchange.status !== 200 || /(^|,)\s*accept\s*(,|$)/i.test(exchange.headers.vary ?? '');
        ok &&= result === answer && vary;
        got.push(`${accept} -> ${result}${vary ? '' : ` without Vary: Accept (Vary: ${exchange.headers.vary ?? '(none)'})`}`);
      }
      return { ok, actual: got.join('; ') };
    },
  );
}
