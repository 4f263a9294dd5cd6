#!/usr/bin/env node
// Kept in git, not built: npm links a package's bin when it installs it, and in a fresh checkout that
// is before `npm run build` writes dist/ (a bin pointing into dist/ would not be linked at all).
import process from 'node:process';

// msw and ajv are optional peers: without one, say how to get it rather than print a module-resolution stack.
for (const peer of ['msw', 'ajv']) {
  try {
    import.meta.resolve(peer); // found, not loaded: the mock's bin loads msw only after its localStorage guard
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    process.stderr.write(`plant-store-mock: it needs ${peer}, an optional peer of @plant-store/client: npm install --save-dev msw ajv\n`);
    process.exit(2);
  }
}
await import('../dist/mock/bin.js');
