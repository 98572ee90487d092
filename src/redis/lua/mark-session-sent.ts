/**
 * Writes on a part's hash which pass was recorded and exported in full (`sent`: its traces and
 * cut, as the session worker names them), so that a pass over the same traces and cut skips
 * itself. Only while the part's keys live: a key expired since the pass read it is not written
 * again (it would outlive its life, with no expiry).
 *
 * KEYS: the part's hash. ARGV: the pass's name. Returns 1 when written, else 0.
 */
export const MARK_SESSION_SENT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'sent', ARGV[1])
return 1
`;
