// What a generated plant is called and tagged; shared by the data generator and the ceiling.
import { BENCH_USER } from './bench-user.js';

const TAGS = ['tropical', 'succulent', 'fern', 'herb'];

export function plantName(id: number, owner = BENCH_USER): string {
  return `Plant ${id} of ${owner}`;
}

/** Every fifth plant has no tag, so pages mix both shapes of Plant. */
export function plantTag(id: number): string | null {
  return id % 5 === 0 ? null : TAGS[id % TAGS.length]!;
}
