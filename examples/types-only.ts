// A frontend file that uses only the generated types, the way a consumer imports them.
import type { components, paths } from '@plant-store/client/types';

type Plant = components['schemas']['Plant'];
type NewPlant = components['schemas']['NewPlant'];
type ListQuery = NonNullable<paths['/plants']['get']['parameters']['query']>;
type ApiError = components['schemas']['Error'];

export const plant: Plant = { name: 'Monstera', tag: 'tropical' };
export const untagged: Plant = { name: 'Fern' };
export const bigId: NewPlant = { id: 9223372036854775807n, name: 'Exact' };
export const query: ListQuery = { limit: 20, cursor: 'djE6NDI' };
export const conflict: ApiError = { error: 409, message: 'already exists' };

// The types are strict: these must not compile. If they ever do, the test fails here.
// @ts-expect-error name is a string
export const wrongName: Plant = { name: 5 };
// @ts-expect-error a NewPlant needs its id
export const missingId: NewPlant = { name: 'No id' };
