// A jsdom window as the global scope of this test process, so React 19 renders as in a browser; imported before React.
import { JSDOM } from 'jsdom';

const { window } = new JSDOM('<!doctype html><html><body></body></html>', { url: 'http://localhost/' });
// Only what Node lacks: Node's own fetch, URL, events and timers stay, so requests are real HTTP.
for (const key of Object.getOwnPropertyNames(window)) {
  if (!(key in globalThis)) Object.defineProperty(globalThis, key, { configurable: true, get: () => window[key as keyof typeof window] });
}
// React's act() warns unless the environment says it is a test.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
