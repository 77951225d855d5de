// Lua scripts of the Redis task store. A task is a hash: `status`, `ver` (bumped by every
// change, for compare-and-set), `lease`, `upd` (lastUpdatedAt), `exp` (when the task expires,
// epoch ms, or empty) and `body` (the rest of the task as JSON, which no script decodes: cjson
// would turn an empty array into an object). Outstanding input requests and their answers are
// hashes of their own, key → JSON. Every key of one deployment shares the `{tasks}` hash tag.

/** True for the statuses a task never leaves. */
const TERMINAL = `local function terminal(s) return s == 'completed' or s == 'failed' or s == 'cancelled' end`;

/**
 * KEYS: task, active set of the owner, owner's list, sequence. ARGV: task id, max active,
 * status, lease, upd, exp ('' = none), body, key prefix of tasks.
 * Returns 1 when stored, 0 when the owner has max unfinished tasks.
 */
export const CREATE_TASK = `${TERMINAL}
local active = 0
for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local s = redis.call('HGET', ARGV[8] .. id, 'status')
  if s and not terminal(s) then active = active + 1 else redis.call('SREM', KEYS[2], id) end
end
if active >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'ver', 1, 'lease', ARGV[4], 'upd', ARGV[5], 'exp', ARGV[6], 'body', ARGV[7])
if ARGV[6] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[6]) end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], redis.call('INCR', KEYS[4]), ARGV[1])
-- The owner's list would keep the ids of expired tasks of an owner who never lists: trim it.
if redis.call('ZCARD', KEYS[3]) > 1000 then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, 99)) do
    if redis.call('EXISTS', ARGV[8] .. id) == 0 then redis.call('ZREM', KEYS[3], id) end
  end
end
return 1`;

/**
 * Compare-and-set of a change. KEYS: task, its input requests, owner's active set.
 * ARGV: version read, status, upd, body, requests mode ('keep' | 'set'), channel, task id,
 * then (mode 'set') key, JSON pairs of the new input requests.
 * Returns 'ok', 'gone', 'terminal' or 'conflict'.
 */
export const UPDATE_TASK = `${TERMINAL}
local current = redis.call('HMGET', KEYS[1], 'status', 'ver', 'exp')
if not current[1] then return 'gone' end
if terminal(current[1]) then return 'terminal' end
if current[2] ~= ARGV[1] then return 'conflict' end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'ver', tonumber(current[2]) + 1, 'upd', ARGV[3], 'body', ARGV[4])
if ARGV[5] == 'set' then
  redis.call('DEL', KEYS[2])
  if #ARGV > 7 then
    for i = 8, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
    if current[3] ~= '' then redis.call('PEXPIREAT', KEYS[2], current[3]) end
  end
end
if terminal(ARGV[2]) then redis.call('SREM', KEYS[3], ARGV[7]) end
redis.call('PUBLISH', ARGV[6], ARGV[7])
return 'ok'`;

/**
 * Answers of tasks/update. KEYS: task, its input requests, its answers. ARGV: upd, channel,
 * task id, then key, JSON pairs. Returns the keys kept, or false when the task is gone.
 */
export const ANSWER_TASK = `${TERMINAL}
local current = redis.call('HMGET', KEYS[1], 'status', 'exp')
if not current[1] then return false end
local kept = {}
if terminal(current[1]) then return kept end
for i = 4, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[2], ARGV[i]) == 1 then
    redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
    kept[#kept + 1] = ARGV[i]
  end
end
if #kept > 0 then
  if current[2] ~= '' then redis.call('PEXPIREAT', KEYS[3], current[2]) end
  redis.call('HINCRBY', KEYS[1], 'ver', 1)
  redis.call('HSET', KEYS[1], 'upd', ARGV[1])
  redis.call('PUBLISH', ARGV[2], ARGV[3])
end
return kept`;

/**
 * Takes one answer. KEYS: task, its input requests, its answers. ARGV: key, upd, channel, task id.
 * Returns the answer's JSON, or false when there is none (or the task is terminal: it never changes).
 */
export const TAKE_ANSWER = `${TERMINAL}
local status = redis.call('HGET', KEYS[1], 'status')
if not status or terminal(status) then return false end
local answer = redis.call('HGET', KEYS[3], ARGV[1])
if not answer then return false end
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if redis.call('HLEN', KEYS[2]) == 0 then redis.call('HSET', KEYS[1], 'status', 'working') end
redis.call('HINCRBY', KEYS[1], 'ver', 1)
redis.call('HSET', KEYS[1], 'upd', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return answer`;

/** Lease renewal. ARGV: lease, then task keys. Unfinished tasks only. */
export const RENEW_TASKS = `${TERMINAL}
for i = 2, #ARGV do
  local s = redis.call('HGET', ARGV[i], 'status')
  if s and not terminal(s) then redis.call('HSET', ARGV[i], 'lease', ARGV[1]) end
end
return 1`;

/**
 * One page of an owner's tasks. KEYS: owner's list. ARGV: key prefix of tasks, cursor ('' =
 * start), limit. Returns the ids (limit + 1 at most, to tell whether more follow), or false for
 * an unknown cursor. Ids of expired tasks are dropped from the list on the way.
 */
export const LIST_TASKS = `
local start = 0
if ARGV[2] ~= '' then
  local rank = redis.call('ZRANK', KEYS[1], ARGV[2])
  if not rank or redis.call('EXISTS', ARGV[1] .. ARGV[2]) == 0 then return false end
  start = rank + 1
end
local limit = tonumber(ARGV[3]) + 1
local found = {}
while #found < limit do
  local ids = redis.call('ZRANGE', KEYS[1], start, start + limit - 1)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    if redis.call('EXISTS', ARGV[1] .. id) == 1 then
      if #found < limit then found[#found + 1] = id end
      start = start + 1
    else
      redis.call('ZREM', KEYS[1], id)
    end
  end
end
return found`;
