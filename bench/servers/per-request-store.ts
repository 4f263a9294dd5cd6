// The write policy group commit is measured against: each create or delete commits alone, as soon
// as it arrives, with synchronous=NORMAL (in WAL mode: no fsync per commit; a power cut may lose the
// last acknowledged writes). Plant Store never uses this; only the benchmark's comparison does.
// Reads and tokens are Plant Store's own (SqliteStore on the same file): it sees these commits as
// another connection's, at its next look.
import type { AddResult, PlantStore, Store, StoredPlant } from '../../src/store/plant-store.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

export function perRequestCommitStore(path: string): Store {
  const store = new SqliteStore(path);
  const db = openDatabase(path);
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  const insert = db.prepare('INSERT INTO plants (owner, id, name, tag) VALUES (?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING');
  const findOne = db.prepare('SELECT name, tag FROM plants WHERE owner = ? AND id = ?').raw();
  const remove = db.prepare('DELETE FROM plants WHERE owner = ? AND id = ?');
  const add = db.transaction((owner: string, plant: StoredPlant): AddResult => {
    const tag = plant.tag ?? null;
    if (insert.run(owner, plant.id, plant.name, tag).changes === 1) return 'created';
    const [name, existingTag] = findOne.get(owner, plant.id) as [string, string | null];
    return name === plant.name && existingTag === tag ? 'unchanged' : 'conflict';
  });
  const forRequest = (): PlantStore => {
    const reads = store.forRequest();
    return {
      findToken: (hash) => reads.findToken(hash),
      listPlants: (owner, after, limit) => reads.listPlants(owner, after, limit),
      addPlant: async (owner, plant) => add.immediate(owner, plant),
      deletePlant: async (owner, id) => remove.run(owner, id).changes === 1,
    };
  };
  return {
    kind: store.kind,
    forRequest,
    addTokens: (user, hashes, expiresAt) => store.addTokens(user, hashes, expiresAt),
    listTokens: (user) => store.listTokens(user),
    revokeToken: (id) => store.revokeToken(id),
    revokeUserTokens: (user) => store.revokeUserTokens(user),
    countTokens: () => store.countTokens(),
    readiness: () => store.readiness(),
    close: async () => {
      db.close();
      await store.close();
    },
  };
}
