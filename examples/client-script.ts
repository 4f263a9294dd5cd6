// A consumer script using `@plant-store/client`: create plants (one id beyond 2^53), list them all, with their ids too, delete one.
// Run: PLANT_STORE_URL=http://127.0.0.1:3000 PLANT_STORE_TOKEN=pst_... npx tsx examples/client-script.ts
import { createPlantStoreClient, PlantStoreError, type ApiError, type NewPlant, type Plant } from '@plant-store/client';

const token = process.env.PLANT_STORE_TOKEN;
if (!token) throw new Error('Set PLANT_STORE_TOKEN to a token from `npx plant-store token create <user>`.');
const client = createPlantStoreClient({ baseUrl: process.env.PLANT_STORE_URL ?? 'http://127.0.0.1:3000', token });

const plants: NewPlant[] = [
  { id: 1, name: 'Fern' },
  { id: 9223372036854775807n, name: 'Monstera', tag: 'tropical' }, // the largest int64, sent exactly
];
for (const plant of plants) {
  const { data, error, response } = await client.POST('/plants', { body: plant });
  if (error) throw new Error(`create failed: ${error.error} ${error.message}`);
  const created: Plant = data;
  console.log(`created ${plant.id}: ${created.name} at ${response.headers.get('location')}`);
}

const conflict = await client.POST('/plants', { body: { id: 1, name: 'Not a fern' } });
const conflictBody: ApiError | undefined = conflict.error;
console.log(`conflict: ${conflict.response.status} ${conflictBody?.message}`);

try {
  for await (const plant of client.allPlants({ limit: 1 }))
    console.log(`listed: ${plant.name}${plant.tag === undefined ? '' : ` (${plant.tag})`}`);
} catch (error) {
  if (error instanceof PlantStoreError) console.error(`listing failed: ${error.status} ${error.message}`);
  throw error;
}

// The listing representation: the same plants with their ids, exact bigints (what a delete button needs).
for await (const { id, name } of client.allPlantListings()) console.log(`id ${id}: ${name}`);

const removed = await client.DELETE('/plants/{id}', { params: { path: { id: 1 } } });
console.log(`deleted 1: ${removed.response.status}`);
