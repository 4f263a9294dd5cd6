// int64 ids are kept exactly: the extremes, and 2^53 + 1, which a JSON.parse on the way rounds to 2^53.
// These ids are fixed, not in the run's block: a plant the user's listing shows there is left alone (skip).
// The plants stay until the listing has shown them (listing.ts), then deleteExactIds removes them by their digits.
import { seen, type Run, type Verdict } from '../run.js';
import { LISTING, walk } from './listing.js';

const EDGES = [9223372036854775807n, -9223372036854775808n, 9007199254740993n];
const ROUNDS_TO = new Map([[9007199254740993n, 9007199254740992n]]);

export async function idChecks(run: Run): Promise<bigint[]> {
  const kept: bigint[] = [];
  for (const id of EDGES) {
    await run.check('POST /plants', `keeps id ${id} exactly`, `200 with Location: /plants/${id}`, async (): Promise<Verdict> => {
      // The id a rounding parser would make of this one, stored first under another name: a service
      // that rounds then answers 409 for this id.
      const neighbour = ROUNDS_TO.get(id);
      const taken = neighbour === undefined ? undefined : await run.create(neighbour, run.name(`id ${neighbour}`));
      if (neighbour !== undefined && taken?.status === 200) kept.push(neighbour);
      const made = await run.create(id, run.name(`id ${id}`));
      if (made.status === 409 && (taken === undefined || taken.status !== 200)) {
        // A skip only when the user's own listing shows a plant at that id: a 409 for an id nobody has is a failure.
        const listed = await walk(run, run.options.token, 1000, LISTING);
        const held = listed.pages.some((page) =>
          page.items.some((item) => item.id === id || (neighbour !== undefined && item.id === neighbour)),
        );
        if (held)
          return {
            ok: false,
            skip: true,
            actual: `409: the user already has a plant with id ${id}${neighbour === undefined ? '' : ` or ${neighbour}`}; give conformance runs a user of their own`,
          };
        return {
          ok: false,
          actual: `${seen(made)}, though the user's ${LISTING} list has no plant with id ${id}${listed.problem ? ` (${listed.problem})` : ''}`,
        };
      }
      if (made.status !== 200)
        return { ok: false, actual: `${seen(made)}${made.status === 409 ? ` (it collided with ${neighbour}: the id was rounded)` : ''}` };
      kept.push(id);
      return { ok: made.headers.location === `/plants/${id}`, actual: seen(made, ['Location']) };
    });
  }
  return kept;
}

export async function deleteExactIds(run: Run, ids: bigint[]): Promise<void> {
  for (const id of ids) {
    await run.check('DELETE /plants/{id}', `deletes id ${id} by its exact digits`, '204 with no body, then 404', async () => {
      const removed = await run.remove(id);
      const again = await run.remove(id);
      const ok = removed.status === 204 && removed.body === '' && again.status === 404;
      return { ok, actual: `${seen(removed)}, then ${seen(again)}${ok ? '' : ' (the stored id is not the one sent)'}` };
    });
  }
}
