/**
 * Adds one turn (a scored trace) to its session's current part, or opens the part after it. A part
 * keeps its turns' ids in the order they came (`order`, space-separated).
 *
 * KEYS: the session's part-1 hash (see `session-keys.ts`; part n \> 1 is `<KEYS[1]>:<n>`, on the
 * same slot by the hash tag). ARGV: the turn's field (`t:<trace id>`), its spans (one span batch),
 * now (ms), the bounds of a part (traces, age in ms, bytes), a part's life (ms: its keys expire
 * that long after its first turn), '1' when the turn may open a session (it is tagged with a
 * session test case), the part the bytes in all were admitted for ('0': none), and the turn's
 * test case id ('' for none): kept on part 1 (`tc`) when the turn opens the session, so that a
 * later part, whose turns need not carry it, is scored by the test case that opened the session;
 * '1' when the turn ends the session (an end marker): its part is marked `end`, and every turn
 * it takes after, such as an earlier turn whose trace was scored later, is due at once too; and
 * how long the number of the session's latest part is kept (`<KEYS[1]>:seen`, ms after that part
 * opened or was cut; the results' retention): a tagged turn of a session whose parts' keys are all
 * gone opens the part after that one, continuing its cut (`:seen` keeps it with the number: see
 * `seen` below; `max_age` when none, and for the previous release's number alone), never a part 1
 * whose record would replace the first part's, nor a fragment that passes for the conversation
 * from its start.
 *
 * The current part takes the turn unless it is closed: cut before (`cut`), released after its
 * last pass (`done`), `maxAgeMs` old, or full (`maxTraces`; the turn would take it past
 * `maxSessionBytes`). A turn already held is replaced in place while its part is not released (a
 * retried trace job). A part closed by this turn is marked cut, for its pass to be made at once.
 * Opening a part (a new session's part 1, or part n + 1) needs admission first: then nothing but
 * that cut is written and the reply asks for it. A part is cut once it holds `maxTraces` turns or
 * `maxSessionBytes` (its first turn alone may be larger: it is held, cut at once).
 *
 * A part-1 hash of the previous release (`first` and turns, no `n`) is counted and taken over in
 * place: it expires a life after its first, and the reply's last element says its bytes.
 *
 * Returns, in order: outcome, part, turns, first ms, bytes added to part, cut, closed part, its
 * cut, continues, bytes taken over, and '1' when the part is ended ('' when not). Outcomes:
 * `added` (to `part`, which now holds `turns`; `cut`: its cut, '' if none), `no_session` (an
 * untagged turn and no session: one `HMGET`), `admit` (the turn would open `part`), `refused` (the
 * turn is one whose admission to `part` was refused and marked, `r:<trace id>` on part 1's hash: a
 * retried trace job adds it again; `continues`: what that part continues). A refused turn is never
 * added to a later part: it was scored alone as the part it would have opened.
 */
export const ADD_SESSION_TRACE = `
local base = KEYS[1]
local field, spans, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local maxTraces, maxAge, maxBytes = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local life = tonumber(ARGV[7])
local seenKey, seenLife = base .. ':seen', ARGV[12]
-- The latest part's number, led by one zero when it was cut max_traces, two for max_bytes (any
-- other: none known, read as max_age): one small value that a release reading the number alone
-- (tonumber) still reads.
local function seen(p, cut)
  local zeros = ''
  if cut == 'max_traces' then zeros = '0' elseif cut == 'max_bytes' then zeros = '00' end
  redis.call('SET', seenKey, zeros .. p, 'PX', seenLife)
end
local function seenCut(raw)
  local zeros = string.len(string.match(raw, '^0*'))
  if zeros == 1 then return 'max_traces' elseif zeros == 2 then return 'max_bytes' end
  return 'max_age'
end
local size = string.len(spans)
local ends = ARGV[11] == '1'
local id = string.sub(field, 3)
local h = redis.call('HMGET', base, 'first', 'part', 'n', 'bytes', 'cut', 'done', 'cont', 'order', 'end', 'r:' .. id)
if h[10] then
  -- Refused before (its part marked closed by refuse-session-part): refused as that part again.
  local sp = string.find(h[10], ' ', 1, true)
  return {'refused', tonumber(string.sub(h[10], 1, sp - 1)), 0, 0, 0, 'max_bytes', 0, '', string.sub(h[10], sp + 1), 0, ''}
end
local function open(p, cont, closed, closedCut, migrated)
  local key = base
  if p > 1 then key = base .. ':' .. p end
  local cut = ''
  if maxTraces <= 1 then cut = 'max_traces' elseif size >= maxBytes then cut = 'max_bytes' end
  redis.call('HSET', key, 'first', now, 'last', now, 'n', 1, 'bytes', size, 'order', id, field, spans)
  if p == 1 and ARGV[10] ~= '' then redis.call('HSET', key, 'tc', ARGV[10]) end
  if cut ~= '' then redis.call('HSET', key, 'cut', cut) end
  if ends then redis.call('HSET', key, 'end', 1) end
  redis.call('PEXPIRE', key, life)
  seen(p, cut)
  if p > 1 then
    redis.call('HSET', key, 'cont', cont)
    redis.call('HSET', base, 'part', p)
    if ARGV[10] ~= '' then redis.call('HSETNX', base, 'tc', ARGV[10]) end
    if redis.call('PTTL', base) < life then redis.call('PEXPIRE', base, life) end
  end
  return {'added', p, 1, now, size, cut, closed, closedCut, cont, migrated, ends and '1' or ''}
end
if not h[1] and not h[2] then
  if ARGV[8] ~= '1' then return {'no_session', 0, 0, 0, 0, '', 0, '', '', 0, ''} end
  -- Admitted (for the part the reply below asked for): opened now.
  local admitted = tonumber(ARGV[9]) or 0
  if admitted == 1 then return open(1, '', 0, '', 0) end
  -- The session's parts may all be gone (past their life): its next part, never part 1 again,
  -- continuing the latest's cut.
  local raw = redis.call('GET', seenKey) or '0'
  local last, lastCut = tonumber(raw) or 0, seenCut(raw)
  if admitted > 1 then return open(admitted, lastCut, 0, '', 0) end
  if last > 0 then return {'admit', last + 1, 0, 0, 0, '', 0, lastCut, '', 0, ''} end
  return {'admit', 1, 0, 0, 0, '', 0, '', '', 0, ''}
end
local part = tonumber(h[2] or '1')
local key = base
local m = {h[1], h[3], h[4], h[5], h[6], h[7], h[8], h[9]}
if part > 1 then
  key = base .. ':' .. part
  m = redis.call('HMGET', key, 'first', 'n', 'bytes', 'cut', 'done', 'cont', 'order', 'end')
end
local migrated = 0
if part == 1 and not m[2] then
  -- The previous release's layout: count its turns and bytes, and keep it a life after its first.
  local n, ids = 0, {}
  for _, f in ipairs(redis.call('HKEYS', base)) do
    if string.sub(f, 1, 2) == 't:' then
      n = n + 1
      ids[n] = string.sub(f, 3)
      migrated = migrated + redis.call('HSTRLEN', base, f)
    end
  end
  m[2], m[3], m[7] = tostring(n), tostring(migrated), table.concat(ids, ' ')
  redis.call('HSET', base, 'n', n, 'bytes', migrated, 'last', m[1], 'order', m[7])
  redis.call('PEXPIRE', base, math.max(1, tonumber(m[1]) + life - now))
end
local first = tonumber(m[1] or '0')
local n, bytes, cut, done = tonumber(m[2] or '0'), tonumber(m[3] or '0'), m[4], m[5]
local old = 0
if m[1] and not done then old = redis.call('HSTRLEN', key, field) end
local closed = false
if not m[1] then closed = seenCut(redis.call('GET', seenKey) or '')
elseif done then closed = cut or 'max_age'
elseif old > 0 then closed = false
elseif cut then closed = cut
elseif now - first >= maxAge then closed = 'max_age'
elseif n >= maxTraces then closed = 'max_traces'
elseif n > 0 and bytes + size > maxBytes then closed = 'max_bytes'
end
if not closed then
  redis.call('HSET', key, field, spans, 'last', now)
  if old == 0 then
    n = n + 1
    local order = id
    if m[7] and m[7] ~= '' then order = m[7] .. ' ' .. id end
    redis.call('HSET', key, 'order', order)
  end
  bytes = bytes + size - old
  redis.call('HSET', key, 'n', n, 'bytes', bytes)
  if not cut then
    if n >= maxTraces then cut = 'max_traces' elseif bytes >= maxBytes then cut = 'max_bytes' end
    if cut then
      redis.call('HSET', key, 'cut', cut)
      seen(part, cut)
    end
  end
  local ended = m[8] ~= false and m[8] ~= nil
  if ends and not ended then
    redis.call('HSET', key, 'end', 1)
    ended = true
  end
  return {'added', part, n, first, size - old, cut or '', 0, '', m[6] or '', migrated, ended and '1' or ''}
end
-- Closed: a cut made now is written, for its pass to say so; the turn opens the next part.
local closedPart = 0
if m[1] and not cut and not done then
  redis.call('HSET', key, 'cut', closed)
  seen(part, closed)
  closedPart = part
end
if ARGV[9] ~= tostring(part + 1) then
  return {'admit', part + 1, 0, 0, 0, '', closedPart, closed, '', migrated, ''}
end
return open(part + 1, closed, closedPart, closed, migrated)
`;
