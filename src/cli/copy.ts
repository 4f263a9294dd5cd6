// `plant-store copy --to <target>`: every plant and token of the configured database into a new one (SQLite file to an
// empty PostgreSQL database, or PostgreSQL to a new SQLite file), verified by counts and checksums of both sides.
import { parseArgs } from 'node:util';
import { databaseSettings } from '../database-settings.js';
import { copyRows } from '../store/copy-rows.js';
import { describeDatabase } from '../store/describe-database.js';
import { postgresSource, postgresTarget } from '../store/postgres/copy-rows.js';
import { sqliteSource, sqliteTarget } from '../store/sqlite/copy-rows.js';
import { writeOut } from './common.js';
import { UsageError } from './usage-error.js';

const isPostgresUrl = (text: string) => /^postgres(ql)?:\/\//i.test(text);

function targetArgument(args: string[]): string {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { to: { type: 'string', multiple: true } } });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const to = parsed.values.to ?? [];
  if (to.length !== 1) throw new UsageError(`copy needs one --to <target>${to.length > 1 ? `, not ${to.length}` : ''}`);
  return to[0]!;
}

export async function copyCommand(args: string[]): Promise<void> {
  const to = targetArgument(args);
  const settings = databaseSettings();
  const fromPostgres = settings.databaseUrl !== undefined;
  if (!fromPostgres && !isPostgresUrl(to))
    throw new UsageError(
      `--to must be a PostgreSQL URL (postgres://user:password@host:5432/database) to copy the SQLite file to; to copy from PostgreSQL to a SQLite file, set DATABASE_URL`,
    );
  if (fromPostgres && isPostgresUrl(to))
    throw new UsageError(
      '--to must be a SQLite file path when DATABASE_URL is set; from one PostgreSQL database to another, use pg_dump and pg_restore',
    );
  if (!fromPostgres && !URL.canParse(to)) throw new UsageError('--to is not a URL: postgres://user:password@host:5432/database');
  const sourceName = describeDatabase(settings).text;
  const targetName = describeDatabase(
    fromPostgres ? { databasePath: to, databaseUrl: undefined } : { databasePath: '', databaseUrl: to },
  ).text;
  process.stderr.write(`plant-store: copying every plant and token of the ${sourceName} to the ${targetName}\n`);

  const source = fromPostgres
    ? await postgresSource(settings.databaseUrl!, settings.databaseTimeoutMs)
    : sqliteSource(settings.databasePath);
  let result;
  try {
    const target = fromPostgres
      ? sqliteTarget(to)
      : await postgresTarget(to, settings.databaseTimeoutMs).catch((error: unknown) => {
          throw new Error(`cannot use the target ${targetName}: ${(error as Error).message}`, { cause: error });
        });
    result = await copyRows(source, target, targetName);
  } finally {
    await source.close();
  }
  await writeOut(
    `plants: ${result.plants} copied, sha256 ${result.plantsSha256} in the source and in the copy\n` +
      `tokens: ${result.tokens} copied, sha256 ${result.tokensSha256} in the source and in the copy\n`,
  );
  process.stderr.write(
    `copied and verified; ${fromPostgres ? `point DATABASE_PATH at ${to} and unset DATABASE_URL` : 'set DATABASE_URL to the target'}, then start Plant Store (docs/deploy.md)\n`,
  );
}
