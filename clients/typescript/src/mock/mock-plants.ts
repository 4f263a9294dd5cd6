// The mock's plants, in memory: per user, keyed by exact bigint id, listed in ascending id order after an opaque cursor.
import type { components } from '@plant-store/client/types';

type Plant = components['schemas']['Plant'];

const CURSOR_PREFIX = 'mock:';

/** base64url of "mock:<id>": opaque to clients, as the contract says; only cursors this mock made decode. */
export function encodeCursor(id: bigint): string {
  return btoa(`${CURSOR_PREFIX}${id}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function decodeCursor(cursor: string): bigint | undefined {
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
  const digits = text.slice(CURSOR_PREFIX.length);
  if (!text.startsWith(CURSOR_PREFIX) || !/^-?[0-9]{1,19}$/.test(digits)) return undefined;
  const id = BigInt(digits);
  return encodeCursor(id) === cursor ? id : undefined;
}

export class MockPlants {
  readonly #users = new Map<string, Map<bigint, Plant>>();

  #of(user: string): Map<bigint, Plant> {
    let plants = this.#users.get(user);
    if (plants === undefined) this.#users.set(user, (plants = new Map<bigint, Plant>()));
    return plants;
  }

  /** 'created', 'same' (an identical retry) or 'conflict' (the id is taken with other content). */
  add(user: string, id: bigint, plant: Plant): 'created' | 'same' | 'conflict' {
    const plants = this.#of(user);
    const stored = plants.get(id);
    if (stored === undefined) {
      plants.set(id, plant);
      return 'created';
    }
    return stored.name === plant.name && stored.tag === plant.tag ? 'same' : 'conflict';
  }

  delete(user: string, id: bigint): boolean {
    return this.#of(user).delete(id);
  }

  /** Up to `limit` plants with ids above `after`, in ascending id order, and whether more follow. */
  page(user: string, after: bigint | undefined, limit: number): { items: [bigint, Plant][]; more: boolean } {
    const ids = [...this.#of(user).keys()].filter((id) => after === undefined || id > after).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const plants = this.#of(user);
    return { items: ids.slice(0, limit).map((id) => [id, plants.get(id)!]), more: ids.length > limit };
  }
}
