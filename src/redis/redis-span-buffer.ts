import { sendBatch, type RedisClient } from './redis-connection.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import { decodeSpanBatch, encodeSpanBatch } from './span-batch-codec.js';

// KEYS: spans list, meta hash. ARGV: now ms, root seen (0/1), ttl ms, keep late spans (0/1),
// span count, the batch (one encodeSpanBatch buffer).
// Returns the scored-at time when the trace was already scored (the spans are late), else ''.
const APPEND = `
local scored = redis.call('HGET', KEYS[2], 'scored')
local late = scored ~= false
if late then
  redis.call('HINCRBY', KEYS[2], 'late', ARGV[5])
  if ARGV[4] ~= '1' then return scored end
end
redis.call('RPUSH', KEYS[1], ARGV[6])
redis.call('HINCRBY', KEYS[2], 'n', ARGV[5])
redis.call('HSETNX', KEYS[2], 'first', ARGV[1])
redis.call('HSET', KEYS[2], 'last', ARGV[1])
if ARGV[2] == '1' then redis.call('HSET', KEYS[2], 'root', '1') end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if late then return scored end
return ''
`;

// KEYS: spans list, meta hash. ARGV: scored-at ms, batches scored, spans appended when they were
// read (the meta hash's `n` then), keep spans (0/1), ttl ms.
// Marks the trace scored; without keep, removes the scored batches but keeps any that arrived
// while it was being scored. Returns how many spans arrived while scoring.
const MARK_SCORED = `
redis.call('HSET', KEYS[2], 'scored', ARGV[1])
redis.call('HDEL', KEYS[2], 'first', 'last', 'root')
local racing = tonumber(redis.call('HGET', KEYS[2], 'n') or '0') - tonumber(ARGV[3])
if ARGV[4] ~= '1' then
  redis.call('LTRIM', KEYS[1], tonumber(ARGV[2]), -1)
  redis.call('HSET', KEYS[2], 'n', racing)
end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return racing
`;

// KEYS: spans list, meta hash. ARGV: claimer ('' for none), claim-by-age threshold (ms: a trace
// first seen at or before it is past its max wait). Returns { meta as a flat field/value list,
// every batch }, atomically. With a claimer (a job holding many traces), an unscored buffered
// trace (`first` is set) that no one claimed becomes the claimer's once the claimer can tell when
// it will be ready without another read: its root arrived (it waits for quiet only) or its max
// wait passed. Any other trace comes back with its meta only: claimed by another, scored, not
// buffered, or rootless and young, left for whichever job reads it once its root has arrived.
const READ = `
if ARGV[1] ~= '' then
  local m = redis.call('HMGET', KEYS[2], 'claim', 'first', 'root')
  if m[1] ~= ARGV[1] then
    if m[1] or not m[2] or (m[3] ~= '1' and tonumber(m[2]) > tonumber(ARGV[2])) then
      return { redis.call('HGETALL', KEYS[2]), {} }
    end
    redis.call('HSET', KEYS[2], 'claim', ARGV[1])
  end
end
return { redis.call('HGETALL', KEYS[2]), redis.call('LRANGE', KEYS[1], 0, -1) }
`;

/**
 * What the buffer knows of a trace's arrival: when its first and latest spans came and whether its
 * root span has (the queue's readiness rule reads it; the same shape as its `TraceProgress`).
 */
export interface BufferProgress {
  firstSeenMs: number;
  lastSeenMs: number;
  rootEnded: boolean;
}

interface BufferCommands {
  spanscoreAppend(
    spansKey: string,
    metaKey: string,
    ...args: Array<string | Buffer>
  ): Promise<string>;
  spanscoreMarkScored(spansKey: string, metaKey: string, ...args: string[]): Promise<number>;
  spanscoreReadBuffer(
    spansKey: string,
    metaKey: string,
    claimer: string,
    claimFirstSeenBy: string,
  ): Promise<[Buffer[], Buffer[]]>;
}

/**
 * Span digests per trace in Redis: a list of span batches (`encodeSpanBatch`, one per request
 * that carried spans of the trace) and a hash of first/last arrival,
 * root seen, scored-at and late-span count, both under one hash tag (`{traceId}`) so a Redis
 * Cluster keeps them in one slot, both with a TTL so nothing outlives `ttlMs`. Every write is one
 * Lua script call per trace per request: never a call per span.
 */
export class RedisSpanBuffer {
  private readonly redis: RedisClient & BufferCommands;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {
    redis.defineCommand('spanscoreAppend', { numberOfKeys: 2, lua: APPEND });
    redis.defineCommand('spanscoreMarkScored', { numberOfKeys: 2, lua: MARK_SCORED });
    redis.defineCommand('spanscoreRead', { numberOfKeys: 2, lua: READ });
    this.redis = redis as RedisClient & BufferCommands;
  }

  /**
   * Appends each trace's spans in one batch (`sendBatch`); returns, per trace, when it was scored if its spans
   * were late (they arrived after scoring), else `undefined`.
   */
  async append(
    byTrace: ReadonlyMap<string, { spans: SpanDigest[]; rootSeen: boolean }>,
    nowMs: number,
    keepLate: boolean,
  ): Promise<Map<string, string | undefined>> {
    const ids = [...byTrace.keys()];
    const values = await sendBatch<BufferCommands>(this.redis, target =>
      ids.map(traceId => {
        const { spans, rootSeen } = byTrace.get(traceId)!;
        return target.spanscoreAppend(
          this.spansKey(traceId),
          this.metaKey(traceId),
          String(nowMs),
          rootSeen ? '1' : '0',
          String(this.ttlMs),
          keepLate ? '1' : '0',
          String(spans.length),
          encodeSpanBatch(spans),
        );
      }),
    );
    const late = new Map<string, string | undefined>();
    values.forEach((value, i) => {
      late.set(ids[i]!, typeof value === 'string' && value !== '' ? value : undefined);
    });
    return late;
  }

  /**
   * What is known of a trace's arrival (`undefined` when nothing is buffered) and every buffered
   * span, in one round trip: a worker reads both, atomically, when the trace's job is due, which is nearly
   * always when the trace is ready. Spans come decoded, in first-arrival order, each span id once
   * (an exporter that retried a request the receiver had accepted appends its spans twice; the
   * later copy wins, as in the memory driver). `stored` counts the list entries (batches) read and
   * `appended` the spans appended so far (duplicates included), for `markScored`.
   */
  async read(traceId: string): Promise<BufferedTrace> {
    return (await this.readMany([traceId], '', 0))[0]!;
  }

  /**
   * {@link RedisSpanBuffer.read} for many traces in one batch (`sendBatch`), in order, by a
   * `claimer` (a job holding many traces), so that of two jobs holding one trace only one scores
   * it. An unscored, unclaimed trace becomes the claimer's for good once its root has arrived or
   * it was first seen at or before `claimFirstSeenBy` (now − the max wait): from then on its
   * claimer can tell when it is ready from its meta alone. Any other trace comes back with
   * `held: false` and no spans: claimed by another (`claimedBy`), scored, not buffered, or
   * rootless and young (no one holds it: the job of the request that brings its root will).
   */
  async readMany(
    traceIds: readonly string[],
    claimer: string,
    claimFirstSeenBy: number,
  ): Promise<BufferedTrace[]> {
    const replies = (await sendBatch<BufferCommands>(this.redis, target =>
      traceIds.map(traceId =>
        target.spanscoreReadBuffer(
          this.spansKey(traceId),
          this.metaKey(traceId),
          claimer,
          String(claimFirstSeenBy),
        ),
      ),
    )) as Array<[Buffer[], Buffer[]]>;
    return replies.map(([fields, batches], i) => {
      const traceId = traceIds[i]!;
      const meta: Record<string, string> = {};
      for (let f = 0; f + 1 < fields.length; f += 2)
        meta[fields[f]!.toString()] = fields[f + 1]!.toString();
      const spans = batches.length
        ? (groupSpansByTrace(batches.flatMap(decodeSpanBatch)).get(traceId) ?? [])
        : [];
      return {
        progress: toProgress(meta),
        spans,
        stored: batches.length,
        appended: Number(meta.n ?? 0),
        held: claimer === '' || meta.claim === claimer,
        ...(claimer !== '' &&
          meta.claim !== undefined &&
          meta.claim !== claimer && { claimedBy: meta.claim }),
      };
    });
  }

  /**
   * Marks a trace scored, given what {@link RedisSpanBuffer.read} returned (`stored` batches,
   * `appended` spans); returns how many spans arrived while it was being scored.
   */
  markScored(
    traceId: string,
    read: { stored: number; appended: number },
    nowMs: number,
    keepSpans: boolean,
  ): Promise<number> {
    return this.redis.spanscoreMarkScored(
      this.spansKey(traceId),
      this.metaKey(traceId),
      String(nowMs),
      String(read.stored),
      String(read.appended),
      keepSpans ? '1' : '0',
      String(this.ttlMs),
    );
  }

  /** Keeps a trace's spans and state `ttlMs` more (while its export is retried). */
  async extend(traceId: string, ttlMs: number): Promise<void> {
    await this.redis
      .multi()
      .pexpire(this.spansKey(traceId), ttlMs)
      .pexpire(this.metaKey(traceId), ttlMs)
      .exec();
  }

  /** Late spans counted for a trace. */
  async lateCount(traceId: string): Promise<number> {
    return Number((await this.redis.hget(this.metaKey(traceId), 'late')) ?? 0);
  }

  private spansKey(traceId: string): string {
    return `${this.prefix}:trace:{${traceId}}:spans`;
  }

  private metaKey(traceId: string): string {
    return metaKeyOf(this.prefix, traceId);
  }
}

/** What {@link RedisSpanBuffer.read} knows of one trace. */
export interface BufferedTrace {
  progress: (BufferProgress & { scored: boolean }) | undefined;
  spans: SpanDigest[];
  stored: number;
  appended: number;
  /**
   * False when read with a claimer that does not hold the trace (see
   * {@link RedisSpanBuffer.readMany}): such a read carries no spans. Always true without one.
   */
  held: boolean;
  /** Set when read with a claimer and another claimer holds the trace: who does. */
  claimedBy?: string;
}

function metaKeyOf(prefix: string, traceId: string): string {
  return `${prefix}:trace:{${traceId}}:meta`;
}

/**
 * A trace whose spans are buffered (one HGETALL), for run records: `scoring` once a job scored it
 * (its spans may be kept for late spans or a retried export; its results are being written);
 * `undefined` when nothing is buffered. Works on any connection: no scripts needed.
 */
export async function readPendingTrace(
  redis: RedisClient,
  prefix: string,
  traceId: string,
): Promise<(BufferProgress & { scoring?: boolean }) | undefined> {
  const progress = toProgress(await redis.hgetall(metaKeyOf(prefix, traceId)));
  if (!progress) return undefined;
  const { scored, ...rest } = progress;
  return scored ? { ...rest, scoring: true } : rest;
}

function toProgress(
  meta: Record<string, string>,
): (BufferProgress & { scored: boolean }) | undefined {
  if (meta.first === undefined)
    return meta.scored === undefined
      ? undefined
      : { firstSeenMs: 0, lastSeenMs: 0, rootEnded: true, scored: true };
  return {
    firstSeenMs: Number(meta.first),
    lastSeenMs: Number(meta.last),
    rootEnded: meta.root === '1',
    scored: meta.scored !== undefined,
  };
}
