// The test files whose outcome can depend on the store. The PostgreSQL leg of `npm test` runs only
// these; the SQLite leg runs every file. A file that imports test/helpers/store-under-test.ts
// (storeKind, onlyOn, breakStore...) must be listed: test/suite.test.ts checks that.
export const storeSpecificTests = [
  'test/cli.test.ts',
  'test/client/index.test.ts',
  'test/clients/conformance/conformance.test.ts',
  'test/hostile/hostile-input.test.ts',
  'test/model/plant-store-model.test.ts',
  'test/model/two-instances.test.ts',
  'test/observability/metrics-lifecycle.test.ts',
  'test/observability/metrics.test.ts',
  'test/observability/traces.test.ts',
  'test/plugins/auth.test.ts',
  'test/plugins/error-handler.test.ts',
  'test/plugins/shared-limits-two-instances.test.ts',
  'test/reliability/crash.test.ts',
  'test/reliability/create-delete-storm.test.ts',
  'test/reliability/database-outage.test.ts',
  'test/reliability/races.test.ts',
  'test/reliability/shutdown-under-load.test.ts',
  'test/routes/health.test.ts',
  'test/routes/plants.test.ts',
  'test/server.test.ts',
  'test/store/postgres/postgres-store.test.ts',
  'test/store/postgres/token-cache.test.ts',
  'test/store/token-expiry.test.ts',
  'test/store/token-uses.test.ts',
];
