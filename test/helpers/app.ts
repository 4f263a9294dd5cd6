// Builds the real app on a fresh database of the store under test, and sends requests through the contract sentinel.
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Test } from 'tap';
import { buildApp } from '../../src/app.js';
import { createToken } from '../../src/auth/tokens.js';
import { loadConfig, type Config } from '../../src/config.js';
import { checkResponse } from './contract.js';
import { freshStore } from './store-under-test.js';
import { tempDir } from './temp-dir.js';

export { tempDir };

/** Configuration for a test app on a fresh database of the store under test. */
export async function testConfig(t: Test, overrides: Partial<Config> = {}): Promise<Config> {
  return { ...loadConfig({}), logLevel: 'silent', ...(await freshStore(t)).config, ...overrides };
}

export async function buildTestApp(t: Test, overrides: Partial<Config> = {}): Promise<FastifyInstance> {
  const app = await buildApp(await testConfig(t, overrides));
  t.teardown(() => app.close());
  return app;
}

export async function tokenFor(app: FastifyInstance, user: string): Promise<string> {
  return (await createToken(app.store, user)).token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;

  json: () => any;
}

/** app.inject, with the response checked against openapi.yaml (the test fails on any mismatch). */
export async function inject(t: Test, app: FastifyInstance, options: InjectOptions): Promise<Reply> {
  const response = await app.inject(options);
  const method = options.method ?? 'GET';
  const url = typeof options.url === 'string' ? options.url : (options.url?.pathname ?? '/');
  const headers = response.headers as Reply['headers'];
  const reply = { status: response.statusCode, headers, body: response.body };
  const problems = checkResponse(method, url, reply);
  t.same(problems, [], `${method} ${url} -> ${reply.status} follows openapi.yaml`);
  return { ...reply, json: () => JSON.parse(reply.body) };
}

/** Real HTTP, with the response checked against openapi.yaml. */
export async function fetchChecked(t: Test, base: string, path: string, init: RequestInit = {}): Promise<Reply> {
  const response = await fetch(base + path, init);
  const body = await response.text();
  const headers = Object.fromEntries(response.headers.entries());
  const reply = { status: response.status, headers, body };
  const problems = checkResponse(init.method ?? 'GET', path, reply);
  t.same(problems, [], `${init.method ?? 'GET'} ${path} -> ${reply.status} follows openapi.yaml`);
  return { ...reply, json: () => JSON.parse(body) };
}
