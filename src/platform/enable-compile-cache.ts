// Imported by the CLI right after the Node check: Node keeps the compiled code of the modules loaded after it, so the next run skips compiling them.

/**
 * In Node's own default folder (NODE_COMPILE_CACHE, else the OS temporary folder), never the user's project; entries are
 * keyed by each file's content, so a rebuilt Plant Store never runs stale code. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 * By getBuiltinModule: an `import` of node:module would build its ESM facade, which loads more of Node than the cache saves.
 * A folder that cannot be made or written leaves the cache off (Node answers status FAILED; it does not throw).
 */
process.getBuiltinModule('node:module').enableCompileCache();
