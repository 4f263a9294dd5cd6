// The mock's plants, in memory and optionally in a Web Storage: per user, keyed by exact bigint id, listed in ascending id order after an opaque cursor.
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

/** Where plants are kept across reloads: the Web Storage interface (localStorage, sessionStorage) or any object like it. */
export interface MockStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The stored text: each user's plants, ids as decimal text (JSON has no bigint). */
interface Stored {
  version: 1;
  users: Record<string, Array<[string, Plant]>>;
}

export class MockPlants {
  readonly #users = new Map<string, Map<bigint, Plant>>();
  readonly #storage: MockStorage | undefined;
  readonly #key: string;

  /** With a storage, the plants stored under `key` are read now and every change is written back at once. */
  constructor(storage?: MockStorage, key = '') {
    this.#storage = storage;
    this.#key = key;
    const text = storage?.getItem(key) ?? null;
    if (text === null) return;
    try {
      const stored = JSON.parse(text) as Partial<Stored> | null;
      if (stored?.version !== 1 || typeof stored.users !== 'object') throw new Error('not version 1');
      for (const [user, plants] of Object.entries(stored.users)) {
        this.#users.set(user, new Map(plants.map(([id, plant]) => [BigInt(id), plant])));
      }
    } catch (error) {
      // Not overwritten: the developer decides (removeItem) rather than the mock losing what it cannot read.
      throw new Error(
        `The mock's plants stored under "${key}" cannot be read (${(error as Error).message}); remove that item to start empty.`,
        { cause: error },
      );
    }
  }

  #save(): void {
    if (this.#storage === undefined) return;
    const users: Stored['users'] = {};
    for (const [user, plants] of this.#users) users[user] = [...plants].map(([id, plant]) => [String(id), plant]);
    this.#storage.setItem(this.#key, JSON.stringify({ version: 1, users } satisfies Stored));
  }

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
      this.#save();
      return 'created';
    }
    return stored.name === plant.name && stored.tag === plant.tag ? 'same' : 'conflict';
  }

  delete(user: string, id: bigint): boolean {
    const deleted = this.#of(user).delete(id);
    if (deleted) this.#save();
    return deleted;
  }

  /** Up to `limit` plants with ids above `after`, in ascending id order, and whether more follow. */
  page(user: string, after: bigint | undefined, limit: number): { items: [bigint, Plant][]; more: boolean } {
    const ids = [...this.#of(user).keys()].filter((id) => after === undefined || id > after).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const plants = this.#of(user);
    return { items: ids.slice(0, limit).map((id) => [id, plants.get(id)!]), more: ids.length > limit };
  }
}
