/**
 * The Lua scripts of the cluster's session store: each method is one script, so one round trip
 * and atomic. Times come from the server's clock (TIME), so nodes with skewed clocks agree on
 * which sessions are live.
 *
 * Keys (all under one hash tag, see RedisSessionStore): KEYS[1] a session's record (its JSON,
 * with a PX lifetime), KEYS[2] the sorted set of live sessions (member: id, score: expiry in
 * epoch ms), KEYS[3] the set of subscribed URIs. The per-URI sets of subscribers are
 * `<ARGV[1]><uri>`: the script derives them, so they are not declared in KEYS; they carry the
 * same hash tag, so they live in the declared keys' slot on Redis Cluster too.
 */

const NOW = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
`;

/** Subscriptions of a record's JSON, as a set (table uri → true). */
const SUBSCRIPTIONS = `
local function subscriptions(json)
  local set = {}
  local list = cjson.decode(json).subscriptions
  if type(list) == 'table' then
    for _, uri in ipairs(list) do set[uri] = true end
  end
  return set
end
local function unindex(uri, id)
  local key = ARGV[1] .. uri
  redis.call('SREM', key, id)
  if redis.call('SCARD', key) == 0 then redis.call('SREM', KEYS[3], uri) end
end
local function index(uri, id)
  redis.call('SADD', KEYS[3], uri)
  redis.call('SADD', ARGV[1] .. uri, id)
end
`;

/** ARGV: subPrefix, id, record, max, ttlMs. 1 when stored, 0 when `max` sessions are live. */
export const CREATE_SCRIPT = `${NOW}${SUBSCRIPTIONS}
local id, ttl = ARGV[2], tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, id)
for uri in pairs(subscriptions(ARGV[3])) do index(uri, id) end
return 1
`;

/**
 * Touches several sessions at once (the requests a node received in one turn of its event
 * loop): KEYS[1] the live set, KEYS[2…] the records; ARGV[1] ttlMs, ARGV[2…] the ids. Returns,
 * per id, its record with its lifetime renewed, or '' when it is gone (its record, or its entry
 * in the live set, expired: the two agree on what is live).
 */
export const TOUCH_SCRIPT = `${NOW}
local ttl = tonumber(ARGV[1])
local out = {}
for i = 2, #ARGV do
  local id, key = ARGV[i], KEYS[i]
  local record = redis.call('GET', key)
  -- The live set decides: a record whose expiry passed there (count() may already have pruned
  -- it, a millisecond before its PX ran out) is gone, not brought back.
  local expiry = redis.call('ZSCORE', KEYS[1], id)
  if record and (not expiry or tonumber(expiry) <= now) then
    redis.call('DEL', key)
    record = false
  end
  if record then
    redis.call('PEXPIRE', key, ttl)
    redis.call('ZADD', KEYS[1], now + ttl, id)
    out[i - 1] = record
  else
    redis.call('ZREM', KEYS[1], id)
    out[i - 1] = ''
  end
end
return out
`;

/** ARGV: subPrefix, id, record, ttlMs. 0 when the session is gone (it is not brought back). */
export const SAVE_SCRIPT = `${NOW}${SUBSCRIPTIONS}
local id, ttl = ARGV[2], tonumber(ARGV[4])
local old = redis.call('GET', KEYS[1])
if not old then
  redis.call('ZREM', KEYS[2], id)
  return 0
end
local before, after = subscriptions(old), subscriptions(ARGV[3])
for uri in pairs(before) do if not after[uri] then unindex(uri, id) end end
for uri in pairs(after) do if not before[uri] then index(uri, id) end end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, id)
return 1
`;

/** ARGV: subPrefix, id. 1 when the session existed. */
export const DELETE_SCRIPT = `${SUBSCRIPTIONS}
local id = ARGV[2]
redis.call('ZREM', KEYS[2], id)
local old = redis.call('GET', KEYS[1])
if not old then return 0 end
for uri in pairs(subscriptions(old)) do unindex(uri, id) end
redis.call('DEL', KEYS[1])
return 1
`;

/**
 * KEYS[1] unused (the record slot, kept for one key layout), ARGV: subPrefix, uri. Live sessions
 * subscribed to the URI or a parent of it (MCP 2025-11-25, Server › Resources §Subscriptions;
 * "covers" as coversUri of @gantry/core). Sessions that expired leave the index here.
 */
export const SUBSCRIBERS_SCRIPT = `${NOW}
local uri = ARGV[2]
local found, seen = {}, {}
for _, subscribed in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  local parent = subscribed
  if string.sub(parent, -1) ~= '/' then parent = parent .. '/' end
  if uri == subscribed or string.sub(uri, 1, #parent) == parent then
    local key = ARGV[1] .. subscribed
    for _, id in ipairs(redis.call('SMEMBERS', key)) do
      local expiry = redis.call('ZSCORE', KEYS[2], id)
      if expiry and tonumber(expiry) > now then
        if not seen[id] then
          seen[id] = true
          found[#found + 1] = id
        end
      else
        redis.call('SREM', key, id)
      end
    end
    if redis.call('SCARD', key) == 0 then redis.call('SREM', KEYS[3], subscribed) end
  end
end
return found
`;

/** KEYS[2] live. The ids of live sessions (expired ones leave the set). */
export const IDS_SCRIPT = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
return redis.call('ZRANGE', KEYS[2], 0, -1)
`;

/** KEYS[2] live. How many sessions are live. */
export const COUNT_SCRIPT = `${NOW}
return redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf')
`;
