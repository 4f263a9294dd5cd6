// `plant-store copy --to <target>`: every plant and token of the configured database into a new one (SQLite file to an
// empty PostgreSQL database, or PostgreSQL to a new SQLite file), verified by counts and checksums of both sides.
import { parseArgs } from 'node:util';
import { databaseSettings } from '../database-settings.js';
import { tally, type CopyTarget, type Rows, type Tally } from '../store/copy-rows.js';
import { describeDatabase } from '../store/describe-database.js';
import { UsageError, writeOut } from './common.js';

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

/** Copies `source` into `target` and checks the target's rows tally with the source's before committing. */
async function copyRows(source: Rows, target: CopyTarget, targetName: string): Promise<Tally> {
  const held = await target.counts();
  if (held.plants > 0 || held.tokens > 0)
    throw new Error(
      `the target ${targetName} already holds ${held.plants} plants and ${held.tokens} tokens: copy only into an empty database; nothing was changed`,
    );
  const expected = await tally(source);
  for await (const batch of source.plants()) await target.addPlants(batch);
  for await (const batch of source.tokens()) await target.addTokens(batch);
  const copied = await tally(target);
  for (const key of ['plants', 'tokens', 'plantsSha256', 'tokensSha256'] as const)
    if (copied[key] !== expected[key])
      throw new Error(
        `the copy does not match the source (${key}: ${String(expected[key])} in the source, ${String(copied[key])} in the copy); nothing was kept`,
      );
  await target.commit();
  return copied;
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
  const source = describeDatabase(settings).text;
  const targetName = describeDatabase(
    fromPostgres ? { databasePath: to, databaseUrl: undefined } : { databasePath: '', databaseUrl: to },
  ).text;
  process.stderr.write(`plant-store: copying every plant and token of the ${source} to the ${targetName}\n`);

  let result: Tally;
  if (fromPostgres) {
    const { postgresSnapshot } = await import('../store/postgres/copy-rows.js');
    const { sqliteTarget } = await import('../store/sqlite/copy-rows.js');
    const snapshot = await postgresSnapshot(settings.databaseUrl!, settings.databaseTimeoutMs);
    try {
      const target = sqliteTarget(to);
      result = await copyRows(snapshot.rows, target, targetName).catch(async (error: unknown) => {
        await target.abandon();
        throw error;
      });
    } finally {
      await snapshot.close();
    }
  } else {
    const { sqliteSnapshot } = await import('../store/sqlite/copy-rows.js');
    const { postgresTarget } = await import('../store/postgres/copy-rows.js');
    const snapshot = sqliteSnapshot(settings.databasePath);
    try {
      const target = await postgresTarget(to, settings.databaseTimeoutMs).catch((error: unknown) => {
        throw new Error(`cannot use the target ${targetName}: ${(error as Error).message}`, { cause: error });
      });
      result = await copyRows(snapshot.rows, target, targetName).catch(async (error: unknown) => {
        await target.abandon();
        throw error;
      });
    } finally {
      snapshot.close();
    }
  }
  await writeOut(
    `plants: ${result.plants} copied, sha256 ${result.plantsSha256} in the source and in the copy\n` +
      `tokens: ${result.tokens} copied, sha256 ${result.tokensSha256} in the source and in the copy\n`,
  );
  process.stderr.write(
    `copied and verified; ${fromPostgres ? `point DATABASE_PATH at ${to} and unset DATABASE_URL` : 'set DATABASE_URL to the target'}, then start Plant Store (docs/deploy.md)\n`,
  );
}
