// The CLI's database settings (database-settings.ts) are the service's: the same values and the same refusals as loadConfig.
import t from 'tap';
import { ConfigError, loadConfig } from '../src/config.js';
import { databaseSettings } from '../src/database-settings.js';

const cases: Array<Record<string, string>> = [
  {},
  { DATABASE_PATH: '/srv/plants.db', DATABASE_POOL_SIZE: '20', DATABASE_TIMEOUT_MS: '100', WRITE_LOCK_TIMEOUT_MS: '0' },
  { DATABASE_URL: 'postgresql://app:secret@db:5432/plants', DATABASE_PATH: '' },
  { DATABASE_URL: 'https://app:secret@db/plants' },
  { DATABASE_URL: 'no scheme' },
  { DATABASE_POOL_SIZE: '0' },
  { DATABASE_POOL_SIZE: '1001' },
  { DATABASE_TIMEOUT_MS: '99' },
  { WRITE_LOCK_TIMEOUT_MS: '1e3' },
  { WRITE_LOCK_TIMEOUT_MS: ' 5' },
];

t.test('every case: the same settings, or the same refusal', async (t) => {
  for (const env of cases) {
    let expected: unknown;
    try {
      const { databasePath, databaseUrl, databasePoolSize, databaseTimeoutMs, writeLockTimeoutMs } = loadConfig(env);
      expected = { databasePath, databaseUrl, databasePoolSize, databaseTimeoutMs, writeLockTimeoutMs };
    } catch (error) {
      t.type(error, ConfigError);
      expected = (error as Error).message;
    }
    let actual: unknown;
    try {
      actual = databaseSettings(env);
    } catch (error) {
      t.type(error, ConfigError);
      actual = (error as Error).message;
    }
    t.same(actual, expected, JSON.stringify(env));
  }
});
