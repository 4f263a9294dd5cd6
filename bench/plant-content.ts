// What the generated data holds per user: how many plants, what each is called and tagged; shared by
// the data generators and the ceilings (which must not load the database code).
import { BENCH_USER } from './bench-user.js';

export const PLANTS_PER_USER = 10_000;

const TAGS = ['tropical', 'succulent', 'fern', 'herb'];

export function plantName(id: number, owner = BENCH_USER): string {
  return `Plant ${id} of ${owner}`;
}

/** Every fifth plant has no tag, so pages mix both shapes of Plant. */
export function plantTag(id: number): string | null {
  return id % 5 === 0 ? null : TAGS[id % TAGS.length]!;
}
