/**
 * The Lua script that appends one event and trims its stream, atomically, so that concurrent
 * writers on several nodes never see a half-trimmed stream (Redis runs a script as one command).
 *
 * KEYS[1] the stream (XADD entries `m` = message JSON, '' for a priming event, and `c` = bytes
 * written to the stream so far, this event included); KEYS[2] its meta hash (`seq` = last
 * sequence number, `bytes` = bytes written so far). ARGV: message, maxEvents, maxBytes, ttlMs, and
 * for the cluster store (all optional): the entry's field (`m`, or `e` for an end marker, which
 * carries no message), the tail channel to PUBLISH `<seq> <field><message>` on ('' for none), and
 * the writer node id with the JSON of the request ids the stream answers (stored in the meta
 * hash as `writer` and `requests` when the id is not ''). Returns the event's sequence number.
 *
 * Publishing from the script orders the notices exactly as the entries (Redis runs one script at
 * a time), and costs no extra round trip.
 *
 * Entries get explicit ids `0-<seq>`, so an event id is `<streamId>.<seq>` as in the in-memory
 * store. The count bound is an exact `MAXLEN =` rather than `~`: approximate trimming keeps up to
 * a whole radix-tree node (100 entries) beyond the bound, and an event past the bound must be as
 * unknown as one never issued; trimming one entry per append costs the same either way. Bytes
 * kept = bytes written − bytes written before the oldest kept entry (its `c` − its size), so no
 * counter needs decrementing when MAXLEN drops an entry.
 */
export const APPEND_SCRIPT = `
local message = ARGV[1]
local maxEvents = tonumber(ARGV[2])
local maxBytes = tonumber(ARGV[3])
local field = ARGV[5] or 'm'
local written = redis.call('HINCRBY', KEYS[2], 'bytes', string.len(message))
local seq = redis.call('HINCRBY', KEYS[2], 'seq', 1)
redis.call('XADD', KEYS[1], 'MAXLEN', '=', maxEvents, '0-' .. seq, field, message, 'c', written)
while true do
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
  if oldest == nil then break end
  local fields = oldest[2]
  local size, upTo = 0, 0
  for i = 1, #fields, 2 do
    if fields[i] == 'm' or fields[i] == 'e' then size = string.len(fields[i + 1]) end
    if fields[i] == 'c' then upTo = tonumber(fields[i + 1]) end
  end
  if written - (upTo - size) <= maxBytes then break end
  redis.call('XDEL', KEYS[1], oldest[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
if ARGV[7] ~= nil and ARGV[7] ~= '' then
  redis.call('HSET', KEYS[2], 'writer', ARGV[7], 'requests', ARGV[8])
end
if ARGV[6] ~= nil and ARGV[6] ~= '' then
  redis.call('PUBLISH', ARGV[6], seq .. ' ' .. field .. message)
end
return seq
`;
