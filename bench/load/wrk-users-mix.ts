// The Lua `request` function of a users-mix plan for wrk: the same choices as users-mix.ts (user by
// Zipf rank, then the kind of call by the plan's shares), with LuaJIT's seeded math.random.
import { cumulative } from '../zipf.js';
import { shareThresholds, type UsersMixPlan } from './users-mix.js';

const lua = (text: string) => JSON.stringify(text); // a JSON string is a valid Lua string literal here (ASCII only)
const list = (values: readonly (string | number)[]) =>
  `{${values.map((value) => (typeof value === 'number' ? String(value) : lua(value))).join(',')}}`;

/** `tokens`: each user's token, in the plan's rank order. */
export function usersMixLua(plan: UsersMixPlan, tokens: readonly string[]): string {
  const [first, cursor, create] = shareThresholds(plan);
  return `math.randomseed(${plan.seed})
local users = ${list(cumulative(plan.weights))}
local cursors = ${list(plan.cursors)}
local get_h, post_h, deleted = {}, {}, {}
for rank, token in ipairs(${list(tokens.map((token) => `Bearer ${token}`))}) do
  get_h[rank] = {["Authorization"] = token}
  post_h[rank] = {["Authorization"] = token, ["Content-Type"] = "application/json"}
  deleted[rank] = ${plan.deleteFirstId}
end
local first_path = ${lua(`/plants?limit=${plan.limit}`)}
local cursor_path = ${lua(`/plants?limit=${plan.limit}&cursor=`)}
local id = ${plan.firstId}
local function pick(sums, draw)
  local low, high = 1, #sums
  while low < high do
    local middle = math.floor((low + high) / 2)
    if draw < sums[middle] then high = middle else low = middle + 1 end
  end
  return low
end
request = function()
  local rank = pick(users, math.random())
  local kind = math.random()
  if kind < ${first} then return wrk.format("GET", first_path, get_h[rank]) end
  if kind < ${cursor} then return wrk.format("GET", cursor_path .. cursors[math.random(#cursors)], get_h[rank]) end
  if kind < ${create} then
    local body = (id % 5 == 0) and string.format('{"id":%d,"name":"Bench plant %d"}', id, id)
      or string.format('{"id":%d,"name":"Bench plant %d","tag":"bench"}', id, id)
    id = id + 1
    return wrk.format("POST", "/plants", post_h[rank], body)
  end
  local path = string.format("/plants/%d", deleted[rank])
  deleted[rank] = deleted[rank] + 1
  return wrk.format("DELETE", path, get_h[rank])
end`;
}
