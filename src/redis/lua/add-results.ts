/**
 * KEYS: the stream, its index (a list of `<entry id> <results>`), its results count. ARGV: the
 * entry's result count, its results (JSON lines). One entry per write of many trace runs; the
 * index lets the trim count results without reading entries.
 */
export const ADD_RESULTS = `
local id = redis.call('XADD', KEYS[1], '*', 'n', ARGV[1], 'r', ARGV[2])
redis.call('RPUSH', KEYS[2], id .. ' ' .. ARGV[1])
redis.call('INCRBY', KEYS[3], ARGV[1])
return id
`;
