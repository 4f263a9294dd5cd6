// `npm run dev` (tsx watch): the service from source, restarted on a save of any file it imports or of openapi.yaml;
// an openapi.yaml that generated/ was not made from is generated first.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// generated/openapi.ts holds openapi.yaml byte for byte, as a JSON string: read as text, so that a stale copy is
// never loaded into this process before the server loads the fresh one.
const yaml = readFileSync(join(root, 'openapi.yaml'), 'utf8');
if (!readFileSync(join(root, 'generated', 'openapi.ts'), 'utf8').includes(JSON.stringify(yaml))) {
  const generate = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'generate.ts')], { stdio: 'inherit' });
  // tsx watch then waits for the next save, with the generator's message on screen.
  if (generate.status !== 0) process.exit(1);
}
const { serve } = await import('../src/server.js');
await serve();
