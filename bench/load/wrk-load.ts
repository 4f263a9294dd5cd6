// Runs a plan with wrk (when installed): a Lua script made from the plan, one thread, results
// printed by the script's done() as one JSON line.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LoadRequest, LoadResult } from './plan.js';
import { tokensInRank } from './users-mix.js';
import { usersMixLua } from './wrk-users-mix.js';

const run = promisify(execFile);
const MARK = 'BENCH-RESULT ';

const lua = (text: string) => JSON.stringify(text); // a JSON string is a valid Lua string literal here (ASCII only)

function requestFunction({ plan, tokens }: LoadRequest): string {
  // Same bodies as newPlantBody in plan.ts: every fifth plant has no tag.
  const post = (step: number) => `local body = (id % 5 == 0) and string.format('{"id":%d,"name":"Bench plant %d"}', id, id)
      or string.format('{"id":%d,"name":"Bench plant %d","tag":"bench"}', id, id)
    id = id + (${step})
    return wrk.format("POST", "/plants", post_headers, body)`;
  switch (plan.kind) {
    case 'get':
      return `wrk.path = ${lua(plan.path)}`;
    case 'get-any':
      return `local paths = {${plan.paths.map(lua).join(',')}}
request = function() return wrk.format("GET", paths[math.random(#paths)], get_headers) end`;
    case 'post':
      return `id = ${plan.firstId}
request = function()
    ${post(plan.step)}
end`;
    case 'delete':
      return `id = ${plan.firstId}
request = function()
    local path = string.format("/plants/%d", id)
    id = id + 1
    return wrk.format("DELETE", path, get_headers)
end`;
    case 'mix':
      return `id = ${plan.firstId}
n = 0
request = function()
    n = n + 1
    if n % ${plan.writeEvery} ~= 0 then return wrk.format("GET", ${lua(plan.path)}, get_headers) end
    ${post(plan.step)}
end`;
    case 'users-mix':
      return usersMixLua(plan, tokensInRank(plan, tokens));
  }
}

function script(load: LoadRequest): string {
  const auth = lua(`Bearer ${load.token}`);
  return `wrk.headers["Authorization"] = ${auth}
get_headers = {["Authorization"] = ${auth}}
post_headers = {["Authorization"] = ${auth}, ["Content-Type"] = "application/json"}
${requestFunction(load)}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('${MARK}{"requests":%d,"us":%d,"status":%d,"errors":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
`;
}

/** `pin` is a command prefix such as ['taskset', '-c', '1'], or empty. */
export async function runWrk(load: LoadRequest, pin: readonly string[]): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-wrk-'));
  try {
    const file = join(dir, 'plan.lua');
    writeFileSync(file, script(load));
    const seconds = Math.max(1, Math.round(load.seconds));
    const args = ['-t1', `-c${load.connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', file, `${load.url}/`];
    const [command, ...rest] = [...pin, 'wrk', ...args];
    const { stdout } = await run(command!, rest, { maxBuffer: 1 << 20 });
    const line = stdout.split('\n').find((text) => text.startsWith(MARK));
    if (line === undefined) throw new Error(`wrk printed no result:\n${stdout}`);
    const raw = JSON.parse(line.slice(MARK.length)) as {
      requests: number;
      us: number;
      status: number;
      errors: number;
      p50: number;
      p99: number;
    };
    return {
      requests: raw.requests - raw.status,
      seconds: raw.us / 1e6,
      unexpected: raw.status,
      errors: raw.errors,
      p50Ms: raw.p50 / 1000,
      p99Ms: raw.p99 / 1000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
