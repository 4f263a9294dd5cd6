// First start on an empty database: create a token for user `default` and show it once, on the
// terminal (stderr), never in the JSON log stream; src/server.ts calls it only once the service listens.
import type { Config } from '../config.js';
import { createToken } from './tokens.js';
import type { TokenStore } from '../store/plant-store.js';

export async function printBootstrapToken(config: Config, store: TokenStore) {
  if ((await store.countTokens()) > 0) return;
  if (!config.bootstrapToken) {
    // Nobody could call the API: say how to make the first token.
    process.stderr.write(
      '\nNo tokens exist, and BOOTSTRAP_TOKEN=off creates none: create one with  npx plant-store token create <user>\n\n',
    );
    return;
  }
  const { token } = await createToken(store, 'default');
  process.stderr.write(
    `\nNo tokens existed, so one was created for user "default" (shown only this once):\n\n  ${token}\n\n` +
      `Try: curl -H "Authorization: Bearer ${token}" http://${config.host}:${config.port}/plants  (BOOTSTRAP_TOKEN=off disables this)\n\n`,
  );
}
