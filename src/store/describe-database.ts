// Names the database a configuration points at, for people: an absolute SQLite path, or a
// PostgreSQL URL without its password or query.
import { resolve } from 'node:path';
import type { Config } from '../config.js';
// Node modules by getBuiltinModule, not `import`: their ESM facades load much of Node, a cost on every CLI start (docs/deploy.md, "Many tokens").
const { existsSync } = process.getBuiltinModule('node:fs');

export interface DatabaseDescription {
  /** "SQLite file /abs/path/plants.db" or "PostgreSQL postgres://app@host:5432/plants". */
  text: string;
  /** True for a SQLite file that does not exist yet (opening it creates it). */
  isNewFile: boolean;
}

export function describeDatabase(config: Pick<Config, 'databasePath' | 'databaseUrl'>): DatabaseDescription {
  if (config.databaseUrl !== undefined) {
    const url = new URL(config.databaseUrl);
    // pg also reads a password from the query (?password=): none of the query is shown.
    url.password = '';
    url.search = '';
    return { text: `PostgreSQL ${url.href}`, isNewFile: false };
  }
  const path = resolve(config.databasePath);
  return { text: `SQLite file ${path}`, isNewFile: !existsSync(path) };
}
