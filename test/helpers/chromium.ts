// Headless Chromium for browser tests: Debian's /usr/bin/chromium driven by playwright-core
// (never a downloaded browser), a fresh profile per test, and a watch on everything the page does.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Locator, type Page, type Response } from 'playwright-core';
import type { Test } from 'tap';
import { tempDir } from './app.js';
import { checkResponse } from './contract.js';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const WAIT = { timeout: 30_000 };

/**
 * Why browser tests skip here, or undefined when they run. PLANT_STORE_TEST_BROWSER=0 skips them on
 * purpose (CI runs them on Node 24 only: what they check is the page and the client in Chromium, not
 * Node). Otherwise, with CI=true they always run, and fail without Chromium.
 */
export function skipReason(): string | undefined {
  if (process.env.PLANT_STORE_TEST_BROWSER === '0') return 'PLANT_STORE_TEST_BROWSER=0: browser tests are off for this run';
  if (existsSync(CHROMIUM) || process.env.CI === 'true') return undefined;
  return `no Chromium at ${CHROMIUM}; install it with "apt-get install chromium" (with CI=true this fails instead)`;
}

/** A page in a fresh Chromium profile, closed at the end of the test. */
export async function openPage(t: Test): Promise<Page> {
  t.ok(existsSync(CHROMIUM), `Chromium is at ${CHROMIUM}`);
  const context = await chromium.launchPersistentContext(join(tempDir(t), 'profile'), {
    executablePath: CHROMIUM,
    args: ARGS,
    headless: true,
  });
  t.teardown(() => context.close());
  return context.pages()[0] ?? (await context.newPage());
}

export interface Watch {
  requests: { method: string; url: string; authorization: string | undefined }[];
  /** CSP violations, console errors and warnings, page errors, failed requests. */
  problems: string[];
  /** Answers from `api` that do not follow openapi.yaml. */
  contract: string[];
  /** Resolves when every answer seen so far has been checked. */
  settled: () => Promise<unknown>;
}

/** Records every request and problem of the page, and checks each answer from `api` against the contract. */
export async function watch(page: Page, api: string): Promise<Watch> {
  const seen: Watch = { requests: [], problems: [], contract: [], settled: () => Promise.all(checks) };
  const checks: Promise<void>[] = [];
  page.on('request', (request) =>
    seen.requests.push({ method: request.method(), url: request.url(), authorization: request.headers().authorization }),
  );
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') seen.problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => seen.problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => seen.problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => checks.push(checkAnswer(response, api, seen.contract)));
  // Chromium also reports CSP violations as console errors; the event makes sure none is missed.
  await page.addInitScript({
    content:
      "document.addEventListener('securitypolicyviolation', (event) => console.error('CSP violation: ' + event.violatedDirective + ' ' + event.blockedURI));",
  });
  return seen;
}

async function checkAnswer(response: Response, api: string, contract: string[]): Promise<void> {
  const url = response.url();
  // A redirect has no body to read; the page follows it and the next answer is checked.
  if (!url.startsWith(`${api}/`) || (response.status() >= 300 && response.status() < 400)) return;
  const path = url.slice(api.length);
  const method = response.request().method();
  // Chromium keeps no body for a 204, and asking for one fails.
  const body = response.status() === 204 ? '' : await response.text();
  const problems = checkResponse(method, path, { status: response.status(), headers: response.headers(), body });
  contract.push(...problems.map((problem) => `${method} ${path}: ${problem}`));
}

/** URLs that went anywhere but `origins` (data: URLs never leave the page). */
export function offsite(seen: Watch, origins: string[]): string[] {
  return seen.requests
    .map((request) => request.url)
    .filter((url) => !url.startsWith('data:') && !origins.some((origin) => url.startsWith(`${origin}/`)));
}

/** The status Swagger UI shows for an operation's last "Try it out" call, once it shows one. */
export async function liveStatus(operation: Locator): Promise<string> {
  const status = operation.locator('.live-responses-table tbody .response-col_status').first();
  await status.waitFor(WAIT);
  return (await status.innerText()).trim();
}
