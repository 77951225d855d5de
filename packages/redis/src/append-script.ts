/**
 * The Lua script that appends one event and trims its stream, atomically, so that concurrent
 * writers on several nodes never see a half-trimmed stream (Redis runs a script as one command).
 *
 * KEYS[1] the stream (XADD entries `m` = message JSON, '' for a priming event, and `c` = bytes
 * written to the stream so far, this event included); KEYS[2] its meta hash (`seq` = last
 * sequence number, `bytes` = bytes written so far). ARGV: message, maxEvents, maxBytes, ttlMs.
 * Returns the event's sequence number.
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
local written = redis.call('HINCRBY', KEYS[2], 'bytes', string.len(message))
local seq = redis.call('HINCRBY', KEYS[2], 'seq', 1)
redis.call('XADD', KEYS[1], 'MAXLEN', '=', maxEvents, '0-' .. seq, 'm', message, 'c', written)
while true do
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
  if oldest == nil then break end
  local fields = oldest[2]
  local size, upTo = 0, 0
  for i = 1, #fields, 2 do
    if fields[i] == 'm' then size = string.len(fields[i + 1]) end
    if fields[i] == 'c' then upTo = tonumber(fields[i + 1]) end
  end
  if written - (upTo - size) <= maxBytes then break end
  redis.call('XDEL', KEYS[1], oldest[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return seq
`;
