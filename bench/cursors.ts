// Cursors for the GET scenarios, made the way Plant Store makes them (its own codec, imported in
// this one place), at random positions across a user's plants.
import { decodeCursor, encodeCursor } from '../src/pagination/cursor.js';
import { PLANTS_PER_USER } from './plant-content.js';
import { seededRandom } from './random.js';

export { decodeCursor, encodeCursor };

/** `count` cursors, each after a random one of a user's first PLANTS_PER_USER - limit plants, so a full page follows it. */
export function randomCursors(count: number, limit: number, seed = limit): string[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () => encodeCursor(BigInt(Math.floor(next() * (PLANTS_PER_USER - limit)))));
}

/** 1,000 GET paths of full pages at random cursors: too many distinct pages for any cache to make this a repeat. */
export function pagesAtRandomCursors(limit: number): string[] {
  return randomCursors(1000, limit).map((cursor) => `/plants?limit=${limit}&cursor=${cursor}`);
}
