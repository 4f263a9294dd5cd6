// The in-memory model of Plant Store that the property test compares the real service with,
// and the commands fast-check draws: create, retried create, conflicting create, list, delete.
import fc from 'fast-check';
import { checkResponse } from '../helpers/contract.js';

export interface ModelPlant {
  name: string;
  tag?: string;
}

/** Per user, plants by id (as decimal text, since Map keys compare bigints by identity). */
export type Model = Map<string, Map<string, ModelPlant>>;

export interface Real {
  /** Base URLs of the servers; requests alternate between them when there are several. */
  bases: string[];
  tokens: Map<string, string>;
  requests: number;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: string;
}

/** One request over real HTTP, checked against openapi.yaml; a mismatch fails the property. */
export async function call(real: Real, user: string, method: string, path: string, body?: string): Promise<Reply> {
  const base = real.bases[real.requests++ % real.bases.length]!;
  const headers: Record<string, string> = { authorization: `Bearer ${real.tokens.get(user)}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(base + path, { method, headers, body });
  const reply = { status: response.status, headers: response.headers, body: await response.text() };
  const problems = checkResponse(method, path, { status: reply.status, headers: Object.fromEntries(response.headers), body: reply.body });
  if (problems.length > 0) throw new Error(`${method} ${path} broke the contract: ${problems.join('; ')}`);
  return reply;
}

function expect(condition: boolean, message: () => string): void {
  if (!condition) throw new Error(message());
}

const plantJson = (plant: ModelPlant) =>
  JSON.stringify(plant.tag === undefined ? { name: plant.name } : { name: plant.name, tag: plant.tag });
const newPlantJson = (id: bigint, plant: ModelPlant) =>
  `{"id":${id},"name":${JSON.stringify(plant.name)}${plant.tag === undefined ? '' : `,"tag":${JSON.stringify(plant.tag)}`}}`;
const same = (a: ModelPlant, b: ModelPlant) => a.name === b.name && a.tag === b.tag;
const plantsOf = (model: Model, user: string) => model.get(user) ?? new Map<string, ModelPlant>();

/** Lists every page of `user`'s plants, following Link headers, and compares with the model. */
export async function verifyList(model: Model, real: Real, user: string, limit: number): Promise<void> {
  const expected = [...plantsOf(model, user).entries()]
    .sort(([a], [b]) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0))
    .map(([, plant]) => plantJson(plant));
  const seen: string[] = [];
  let path = `/plants?limit=${limit}`;
  for (let page = 0; ; page++) {
    expect(page <= expected.length, () => `more pages than plants for ${user}`);
    const reply = await call(real, user, 'GET', path);
    expect(reply.status === 200, () => `GET ${path} answered ${reply.status}`);
    const plants = JSON.parse(reply.body) as ModelPlant[];
    seen.push(...plants.map(plantJson));
    const link = reply.headers.get('link');
    if (link === null) break;
    const next = /^<(\/plants\?[^>]+)>; rel="next"$/.exec(link);
    expect(next !== null && plants.length === limit, () => `bad Link ${link} on a page of ${plants.length}`);
    path = next![1]!;
  }
  expect(
    JSON.stringify(seen) === JSON.stringify(expected),
    () => `${user} lists ${JSON.stringify(seen)}, model has ${JSON.stringify(expected)}`,
  );
}

type Command = fc.AsyncCommand<Model, Real>;

class Create implements Command {
  constructor(
    readonly user: string,
    readonly id: bigint,
    readonly plant: ModelPlant,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const plants = plantsOf(model, this.user);
    const existing = plants.get(String(this.id));
    const reply = await call(real, this.user, 'POST', '/plants', newPlantJson(this.id, this.plant));
    const wanted = existing === undefined || same(existing, this.plant) ? 200 : 409;
    expect(reply.status === wanted, () => `${this.toString()} answered ${reply.status}, model says ${wanted}`);
    if (wanted === 200) {
      expect(reply.body === plantJson(this.plant), () => `${this.toString()} answered ${reply.body}`);
      plants.set(String(this.id), this.plant);
      model.set(this.user, plants);
    }
    await verifyList(model, real, this.user, 3);
  }
  toString = () => `create(${this.user}, ${this.id}, ${plantJson(this.plant)})`;
}

/** Re-sends an existing plant of the user: the same content (retry, 200) or different content (409). */
class Resend implements Command {
  constructor(
    readonly user: string,
    readonly pick: number,
    readonly conflicting: boolean,
  ) {}
  check = (model: Readonly<Model>) => plantsOf(model, this.user).size > 0;
  async run(model: Model, real: Real) {
    const entries = [...plantsOf(model, this.user).entries()];
    const [id, plant] = entries[this.pick % entries.length]!;
    // Different content within the limits: the name changes, its length does not grow past 200.
    const sent = this.conflicting ? { ...plant, name: `${plant.name.slice(plant.name.length >= 200 ? 1 : 0)}!` } : plant;
    const reply = await call(real, this.user, 'POST', '/plants', newPlantJson(BigInt(id), sent));
    const wanted = this.conflicting ? 409 : 200;
    expect(reply.status === wanted, () => `${this.toString()} on id ${id} answered ${reply.status}, model says ${wanted}`);
    await verifyList(model, real, this.user, 2);
  }
  toString = () => `${this.conflicting ? 'conflictingCreate' : 'retriedCreate'}(${this.user}, pick ${this.pick})`;
}

class Delete implements Command {
  constructor(
    readonly user: string,
    readonly id: bigint,
    readonly twice: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const plants = plantsOf(model, this.user);
    for (let attempt = 0; attempt < (this.twice ? 2 : 1); attempt++) {
      const wanted = plants.has(String(this.id)) ? 204 : 404;
      const reply = await call(real, this.user, 'DELETE', `/plants/${this.id}`);
      expect(reply.status === wanted, () => `${this.toString()} answered ${reply.status}, model says ${wanted}`);
      plants.delete(String(this.id));
    }
    await verifyList(model, real, this.user, 4);
  }
  toString = () => `delete${this.twice ? 'Twice' : ''}(${this.user}, ${this.id})`;
}

class List implements Command {
  constructor(
    readonly user: string,
    readonly limit: number,
  ) {}
  check = () => true;
  run = (model: Model, real: Real) => verifyList(model, real, this.user, this.limit);
  toString = () => `list(${this.user}, limit ${this.limit})`;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Ids that collide across users and hit the edges: int64 extremes and beyond 2^53. */
export const ids = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(INT64_MIN, INT64_MIN + 1n, -1n, 0n, 1n, 7n, 2n ** 53n, 2n ** 53n + 1n, INT64_MAX - 1n, INT64_MAX),
  },
  { weight: 1, arbitrary: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }) },
);
const plants = fc.record(
  {
    name: fc.constantFrom('Fern', 'Ivy', 'Monstera', 'Cactus 🌵', 'Größe', 'x'.repeat(200)),
    tag: fc.constantFrom('', 'green', 'tropical'),
  },
  { requiredKeys: ['name'] },
);

export function commandsFor(users: string[]) {
  const user = fc.constantFrom(...users);
  return fc.commands(
    [
      fc.tuple(user, ids, plants).map(([u, id, plant]) => new Create(u, id, plant)),
      fc.tuple(user, fc.nat(), fc.boolean()).map(([u, pick, conflicting]) => new Resend(u, pick, conflicting)),
      fc.tuple(user, ids, fc.boolean()).map(([u, id, twice]) => new Delete(u, id, twice)),
      fc.tuple(user, fc.integer({ min: 1, max: 5 })).map(([u, limit]) => new List(u, limit)),
    ],
    { maxCommands: 30, size: 'large' },
  );
}
