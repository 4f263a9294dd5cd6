// `import '@plant-store/client'` loads neither React, TanStack Query, openapi-react-query, MSW nor Ajv: they belong to the
// `/react-query` and `/mock` entry points only (optional peer dependencies), checked by recording every module a fresh Node resolves.
import { execFile } from 'node:child_process';
import * as nodeModule from 'node:module';
import { promisify } from 'node:util';
import t from 'tap';
import { projectRoot } from '../helpers/paths.js';

const OPTIONAL = /\/node_modules\/(react|react-dom|@tanstack\/[^/]+|openapi-react-query|msw|@mswjs\/[^/]+|ajv)\//;

/** The package folders a fresh Node process loads for `import(entry)`, resolved as a consumer's project resolves them. */
async function loadedBy(entry: string): Promise<string[]> {
  const script = `
    import { registerHooks } from 'node:module';
    const urls = new Set();
    registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); urls.add(result.url); return result; } });
    await import(${JSON.stringify(entry)});
    process.stdout.write(JSON.stringify([...urls]));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: projectRoot });
  return (JSON.parse(stdout) as string[]).map((url) => decodeURIComponent(url));
}

// module.registerHooks arrived in Node 22.15; on 22.14 (the oldest supported) the check cannot be made.
const skip = 'registerHooks' in nodeModule ? false : 'module.registerHooks needs Node 22.15 or newer';

t.test('the main entry loads none of the optional peers', { skip }, async (t) => {
  const loaded = await loadedBy('@plant-store/client');
  t.ok(
    loaded.some((url) => url.includes('/node_modules/openapi-fetch/')),
    'the detector sees packages (openapi-fetch is loaded)',
  );
  t.same(
    loaded.filter((url) => OPTIONAL.test(url)),
    [],
    'no react, @tanstack, openapi-react-query, msw or ajv',
  );
});

t.test('the other entries load what they are for', { skip }, async (t) => {
  const mock = await loadedBy('@plant-store/client/mock');
  t.ok(
    mock.some((url) => url.includes('/node_modules/msw/')),
    '/mock loads msw',
  );
  t.ok(
    mock.some((url) => url.includes('/node_modules/ajv/')),
    '/mock loads ajv',
  );
  t.notOk(
    mock.some((url) => /\/node_modules\/(react|@tanstack)\//.test(url)),
    '/mock loads no React',
  );
  const hooks = await loadedBy('@plant-store/client/react-query');
  t.ok(
    hooks.some((url) => url.includes('/node_modules/openapi-react-query/')),
    '/react-query loads openapi-react-query',
  );
  t.notOk(
    hooks.some((url) => /\/node_modules\/(msw|ajv)\//.test(url)),
    '/react-query loads neither msw nor ajv',
  );
});
