// What start-up and the CLI print about the database: never a password, wherever the URL holds it.
import t from 'tap';
import { describeDatabase } from '../../src/store/describe-database.js';

t.test('a PostgreSQL URL is shown without its password, in the user part or in the query', async (t) => {
  const shown = (databaseUrl: string) => describeDatabase({ databaseUrl, databasePath: 'unused.db' }).text;
  t.equal(shown('postgres://app:hunter2@db.internal:5432/plants'), 'PostgreSQL postgres://app@db.internal:5432/plants');
  t.equal(shown('postgres://app@db.internal/plants?password=hunter2&sslmode=require'), 'PostgreSQL postgres://app@db.internal/plants');
  t.notMatch(shown('postgresql://app:hunter2@db/plants?sslpassword=hunter2'), /hunter2/);
});

t.test('a SQLite path is shown absolute, and whether opening it creates it', async (t) => {
  const { text, isNewFile } = describeDatabase({ databasePath: 'no/such/dir/plants.db', databaseUrl: undefined });
  t.match(text, /^SQLite file \/.*\/no\/such\/dir\/plants\.db$/);
  t.equal(isNewFile, true);
});
