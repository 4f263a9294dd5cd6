// Imported first by the bin: Node 25 and newer define a global `localStorage` that prints an ExperimentalWarning on
// first use unless started with --localstorage-file, and MSW looks for it (to keep cookies, in a browser). This
// process is a server, not a browser: it has no localStorage, and says nothing about it.
if ('localStorage' in globalThis) {
  Object.defineProperty(globalThis, 'localStorage', { value: undefined, configurable: true, writable: true });
}
