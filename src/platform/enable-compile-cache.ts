// Imported by the CLI right after the Node check: Node keeps the compiled code of the modules loaded after it, so the next run skips compiling them.

/**
 * Node's compile cache (module.enableCompileCache), in Node's own default folder: NODE_COMPILE_CACHE when set, else
 * node-compile-cache in the OS temporary folder (os.tmpdir(), TMPDIR), never in the user's project; entries are keyed by
 * each file's content, so a rebuilt or upgraded Plant Store never runs stale code. A folder that cannot be made or
 * written leaves the cache off without a word: a command then only starts a few milliseconds slower.
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off. By getBuiltinModule: an `import` of node:module would build its ESM facade,
 * which loads more of Node than the cache saves.
 */
try {
  process.getBuiltinModule('node:module').enableCompileCache();
} catch {
  // Never a reason to stop a command: it reports failures in its result, and this catches anything else.
}
