// An async iterator over all of a user's plants, one page after another, following rel="next".
import type { Client } from 'openapi-fetch';
import type { components, paths } from '@plant-store/client/types';
import { nextLink } from './link-header.js';
import { PlantStoreError } from './plant-store-error.js';

type Plant = components['schemas']['Plant'];

export interface AllPlantsOptions {
  /** Plants per page, 1 to 1000 (the service's default is 100). */
  limit?: number;
}

export async function* allPlants(client: Client<paths>, options: AllPlantsOptions = {}): AsyncGenerator<Plant, void, undefined> {
  let page = await client.GET('/plants', { params: { query: options.limit === undefined ? {} : { limit: options.limit } } });
  for (;;) {
    const { data, error, response } = page;
    if (data === undefined) throw new PlantStoreError(response.status, error);
    yield* data;
    const next = nextLink(response.headers.get('link'));
    if (next === undefined) return;
    // The next page is GET /plants with exactly the query of the Link target (its opaque
    // cursor and limit), sent through this client: the token only ever goes to the base URL
    // the client was given, whatever the Link says.
    const query = new URL(next, 'http://link.invalid').search.slice(1);
    page = await client.GET('/plants', { querySerializer: () => query });
  }
}
