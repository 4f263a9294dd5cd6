// `npm run dev`: the service from source (tsx), restarted by Node's own watch mode on a save in src/ or
// generated/; a save of openapi.yaml is generated here, which restarts it.
import { spawnSync } from 'node:child_process';
import { readFileSync, watch } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const contract = join(root, 'openapi.yaml');

/**
 * Runs the generator when generated/ was not made from openapi.yaml as it is now: generated/openapi.ts holds it
 * byte for byte, read as text so that no stale generated module is ever loaded into this process.
 */
function generateIfChanged(): boolean {
  const yaml = readFileSync(contract, 'utf8');
  if (readFileSync(join(root, 'generated', 'openapi.ts'), 'utf8').includes(JSON.stringify(yaml))) return true;
  return spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'generate.ts')], { stdio: 'inherit' }).status === 0;
}

// The folder, not the file: a watch on openapi.yaml itself goes deaf once an editor saves by renaming a new file
// over it. What the generator writes to generated/ makes Node's watch mode restart this process.
watch(root, (_event, name) => {
  if (name === 'openapi.yaml') generateIfChanged();
});

if (generateIfChanged()) {
  const { serve } = await import('../src/server.js');
  // A start that fails (a handler missing, say) leaves this process waiting for the next save, its cause on screen.
  await serve().catch((error: unknown) => console.error(`plant-store: could not start: ${(error as Error).message}`));
}
