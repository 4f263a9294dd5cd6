// A server loads the drivers of what it is configured to use, and no others: ioredis (about 25 MB
// of memory), pg (about 10 MB) and jose (an identity provider's tokens) stay out of a SQLite
// server without REDIS_URL or OIDC_ISSUER.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { tempDir } from '../helpers/temp-dir.js';
import { startServer } from '../helpers/process.js';

/**
 * For --import (in NODE_OPTIONS, so no spaces): a module hook recording each package the process
 * resolves, imported or required, one name a line, in the file RECORD_PACKAGES_TO names.
 */
const recordPackages = `data:text/javascript,${encodeURIComponent(`
  import { appendFileSync } from 'node:fs';
  import { registerHooks } from 'node:module';
  registerHooks({
    resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      const name = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(resolved.url)?.[1];
      if (name !== undefined) appendFileSync(process.env.RECORD_PACKAGES_TO, name + '\\n');
      return resolved;
    },
  });`)}`;

t.test('a SQLite server without Redis or an identity provider loads neither ioredis, pg nor jose', async (t) => {
  const dir = tempDir(t);
  const record = join(dir, 'packages.txt');
  const server = await startServer(t, {
    DATABASE_PATH: join(dir, 'plants.db'),
    BOOTSTRAP_TOKEN: 'off',
    RECORD_PACKAGES_TO: record,
    NODE_OPTIONS: `--import ${recordPackages}`,
  });
  t.equal((await fetch(`${server.url}/plants`)).status, 401, 'it answers');
  const loaded = new Set(readFileSync(record, 'utf8').split('\n'));
  t.ok(loaded.has('fastify') && loaded.has('better-sqlite3'), 'the record sees the packages it uses');
  for (const unused of ['ioredis', 'pg', 'jose']) t.notOk(loaded.has(unused), `${unused} is not loaded`);
});
