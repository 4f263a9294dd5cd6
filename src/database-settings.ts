// The database settings (DATABASE_*, WRITE_LOCK_TIMEOUT_MS), read by the service and alone by the CLI's commands:
// config.ts's whole schema (TypeBox, Ajv) would cost a `token create` several times its time (docs/deploy.md, "Many tokens").

/** Name -> [minimum, maximum, default], as config.ts's whole-number rules take them. */
export const DATABASE_NUMBERS = {
  DATABASE_POOL_SIZE: [1, 1000, 10],
  DATABASE_TIMEOUT_MS: [100, 600_000, 5000],
  WRITE_LOCK_TIMEOUT_MS: [0, 600_000, 5000],
} as const;
export const DEFAULT_DATABASE_PATH = './data/plants.db';
export const DATABASE_URL_RULE = 'a postgres:// or postgresql:// URL';
const isDatabaseUrl = (url: URL) => /^postgres(ql)?:\/\//.test(url.href);

/** A value that may hold a password, as a refusal shows it: its scheme only. */
export function masked(text: string): string {
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(text)?.[0];
  return `this ${scheme ? `${scheme} URL` : 'value without a scheme'} (the rest is not shown: it may hold a password)`;
}

export type DatabaseSettings = ReturnType<typeof databaseSettings>;

/** A setting that stops start-up or a command: the message names the variable, its rule, and the value (of a URL, its scheme only). */
export class ConfigError extends Error {}

/** The database settings from the environment; the same values and refusals as loadConfig's (test/database-settings.test.ts). */
export function databaseSettings(raw: NodeJS.ProcessEnv = process.env) {
  const value = (name: string) => (raw[name] === '' ? undefined : raw[name]); // empty is unset
  const number = (name: keyof typeof DATABASE_NUMBERS): number => {
    const [minimum, maximum, fallback] = DATABASE_NUMBERS[name];
    const text = value(name);
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text) || Number(text) < minimum || Number(text) > maximum)
      throw new ConfigError(`${name} must be a whole number from ${minimum} to ${maximum}, not ${JSON.stringify(text)}`);
    return Number(text);
  };
  const url = value('DATABASE_URL');
  if (url !== undefined && !(URL.canParse(url) && isDatabaseUrl(new URL(url))))
    throw new ConfigError(`DATABASE_URL must be ${DATABASE_URL_RULE}, not ${masked(url)}`);
  return {
    databasePath: value('DATABASE_PATH') ?? DEFAULT_DATABASE_PATH,
    databaseUrl: url,
    databasePoolSize: number('DATABASE_POOL_SIZE'),
    databaseTimeoutMs: number('DATABASE_TIMEOUT_MS'),
    writeLockTimeoutMs: number('WRITE_LOCK_TIMEOUT_MS'),
  };
}
