import { createHash } from 'node:crypto';
import { sendBatch, type RedisClient } from './redis-connection.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import { decodeSpanBatch, encodeSpanBatch } from './span-batch-codec.js';
import { APPEND_SPAN_BATCH } from './lua/append-span-batch.js';

// One hash per trace holds everything: the span batches (fields `b0`, `b1`, …, one per request
// that carried spans of the trace; blanked, not deleted, once scored) and the trace's state
// (`first`, `last`, `root`, `n` spans appended, `k` batches appended, `claim`, `scored`, `late`,
// `lw` / `lr` once a logs-writing model span / a log record of it arrived, `rs` and `rsn`:
// `countRescore`).
// One key means one TTL to set, on the first append only, and one HGETALL to read it all: a
// trace costs about eight commands here (see docs/performance.md, "Redis commands per trace").

// KEYS: the trace's hash. ARGV: spans appended when they were read (its `n` then), ttl ms, then
// the fields that mark it scored (field, value, …). Marks a trace scored whose spans are kept (to
// rescore with late spans): returns how many spans arrived while it was being scored, and keeps
// everything `ttlMs` more. Without keeping, marking needs no script (see `markScored`).
const MARK_SCORED_KEEP = `
local racing = tonumber(redis.call('HGET', KEYS[1], 'n') or '0') - tonumber(ARGV[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return racing
`;

// KEYS, ARGV: as the marking of a trace whose spans are not kept sends them: spans appended when
// read, ttl ms, then the fields ('scored', its time, …). A retried marking (see `markScored`'s
// `again`): when the trace is scored at this very time already, an earlier try that timed out
// ran after all, and `n` holds what its HINCRBY left, the spans stored since the read (appends
// to a scored trace whose spans are not kept leave `n` alone): returned, nothing written.
// Otherwise the marking itself, as one script.
const MARK_SCORED_AGAIN = `
if redis.call('HGET', KEYS[1], 'scored') == ARGV[4] then
  return tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
local racing = redis.call('HINCRBY', KEYS[1], 'n', -tonumber(ARGV[1]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return racing
`;

/**
 * What the buffer knows of a trace's arrival: when its first and latest spans came and whether its
 * root span has (the queue's readiness rule reads it; the same shape as its `TraceProgress`).
 */
export interface BufferProgress {
  firstSeenMs: number;
  lastSeenMs: number;
  rootEnded: boolean;
  /** A logs-writing model span arrived, and no log record yet. */
  awaitingLogs?: boolean;
}

// The layout of the release before this one (version 1): a list of batches
// (`<prefix>:trace:{id}:spans`) and a hash of state (`…:meta`: n, first, last, root, claim,
// scored, late). KEYS: the trace's hash (version 2), the old list, the old hash. ARGV: the
// unscored TTL ms. Moves a trace written in version 1 into its version-2 hash, atomically, unless
// that hash exists already; returns 1 when it moved one. Kept for one release, so that workers of
// this one score what receivers of the previous one buffered (a rolling upgrade under traffic).
const MIGRATE_V1 = `
if tonumber(ARGV[1]) <= 0 or redis.call('EXISTS', KEYS[3]) == 0 or redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local meta = redis.call('HGETALL', KEYS[3])
local scored = false
for i = 1, #meta, 2 do
  local f = meta[i]
  if f == 'n' or f == 'first' or f == 'last' or f == 'root' or f == 'claim' or f == 'scored' or f == 'late' then
    redis.call('HSET', KEYS[1], f, meta[i + 1])
    if f == 'scored' then scored = true end
  end
end
local batches = redis.call('LRANGE', KEYS[2], 0, -1)
for i, batch in ipairs(batches) do redis.call('HSET', KEYS[1], 'b' .. (i - 1), batch) end
redis.call('HSET', KEYS[1], 'k', #batches)
local ttl = redis.call('PTTL', KEYS[3])
if scored and ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) else redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
redis.call('DEL', KEYS[2], KEYS[3])
return 1
`;

interface BufferCommands {
  spanscoreAppend(key: string, ...args: Array<string | Buffer>): Promise<string>;
  spanscoreMarkScoredKeep(key: string, ...args: string[]): Promise<number>;
  spanscoreMarkScoredAgain(key: string, ...args: string[]): Promise<number>;
  spanscoreMigrateV1(key: string, spans: string, meta: string, ttlMs: string): Promise<number>;
}

/**
 * How long a trace's hash lives: `unscoredTtlMs` from its first span while no worker has scored
 * it (long: its job may wait out a worker outage; the receiver's admission refuses traffic long
 * before, see `admission.maxBacklogAgeMs`), `scoredTtlMs` from its scoring once scored (the late
 * window: spans after that start a new trace).
 */
export interface BufferTtls {
  unscoredTtlMs: number;
  scoredTtlMs: number;
  /**
   * Spans kept of one trace: a request's batch for a trace that already holds this many is not
   * stored, and counted; of the batch that crosses it the caller appends the spans that fit
   * (`'+N'`, see `append`). A batch sent again whole (an exporter's retry) is known by its digest
   * and takes no room. Limit: a span id sent again in a *different* batch (a request regrouped
   * before it was retried) counts again against the cap (so later spans may be refused and
   * counted in `dropped`), though it is read and scored once; the memory driver counts it once. Counting span ids exactly would
   * keep every span id of a trace in Redis and check each on every append (the common path is one
   * script call a trace, its batch's digest the only id it checks). @defaultValue no limit
   */
  maxSpansPerTrace?: number;
}

/**
 * Span digests per trace in Redis, in one hash per trace (`<prefix>:trace:{traceId}:buffer`, its
 * hash tag keeping a Redis Cluster's trace in one slot): the span batches (`encodeSpanBatch`, one
 * per request that carried spans of the trace) beside first/last arrival, root seen, claim,
 * scored-at and late-span count. Its TTL ({@link BufferTtls}) is set by the first append and
 * replaced when it is scored. Never a call per span: an append is one script call per trace per
 * request (HMGET, HSET, and PEXPIRE on the first), a read one HGETALL (and an HSETNX when it
 * claims), marking scored an HSET, an HINCRBY and a PEXPIRE in one round trip (a script of three
 * commands when the spans are kept).
 */
export class RedisSpanBuffer {
  private readonly redis: RedisClient & BufferCommands;
  private readonly ttls: BufferTtls;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    ttls: BufferTtls,
  ) {
    this.ttls = ttls;
    redis.defineCommand('spanscoreAppend', { numberOfKeys: 1, lua: APPEND_SPAN_BATCH });
    redis.defineCommand('spanscoreMarkScoredKeep', { numberOfKeys: 1, lua: MARK_SCORED_KEEP });
    redis.defineCommand('spanscoreMarkScoredAgain', { numberOfKeys: 1, lua: MARK_SCORED_AGAIN });
    redis.defineCommand('spanscoreMigrateV1', { numberOfKeys: 3, lua: MIGRATE_V1 });
    this.redis = redis as RedisClient & BufferCommands;
  }

  /**
   * Appends each trace's spans in one batch (`sendBatch`); returns, per trace, when it was scored
   * if its spans were late (they arrived after scoring), `'-'` if they were not kept because the
   * trace holds `maxSpansPerTrace` spans already, `'+N'` if they were not kept because they would
   * take it past that, `N` of them fitting (append the first `N` again, with `cut` saying how many
   * were left out), else `undefined`. A batch with `refuse` is answered `'-'`, its spans and `cut`
   * counted in `dropped`, unless it is late without `keepLate` or a copy of one appended before.
   */
  async append(
    byTrace: ReadonlyMap<
      string,
      {
        spans: SpanDigest[];
        rootSeen: boolean;
        logs?: 'record' | 'writer' | undefined;
        /** Spans of the trace the request held past `spans` (cut off after a `'+N'` answer). */
        cut?: number;
        /** When `spans` is a cut: the request's spans of the trace, whole, as first appended. */
        whole?: SpanDigest[];
        /** Refuse the batch as if its trace held `maxSpansPerTrace` spans (answered `'-'`). */
        refuse?: boolean;
      }
    >,
    nowMs: number,
    keepLate: boolean,
  ): Promise<Map<string, string | undefined>> {
    const ids = [...byTrace.keys()];
    const values = await sendBatch<BufferCommands>(this.redis, target =>
      ids.map(traceId => {
        const { spans, rootSeen, logs, cut, whole, refuse } = byTrace.get(traceId)!;
        const batch = encodeSpanBatch(spans);
        return target.spanscoreAppend(
          bufferKeyOf(this.prefix, traceId),
          String(nowMs),
          `${rootSeen ? '1' : '0'}${logs === 'record' ? 'l' : logs === 'writer' ? 'w' : ''}`,
          String(this.ttls.unscoredTtlMs),
          keepLate ? '1' : '0',
          String(spans.length),
          batch,
          String(this.ttls.scoredTtlMs),
          String(this.ttls.maxSpansPerTrace ?? Number.MAX_SAFE_INTEGER),
          batchDigest(batch),
          String(cut ?? 0),
          whole ? batchDigest(encodeSpanBatch(whole)) : '',
          refuse ? '1' : '0',
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
   * span, in one round trip: a worker reads both, atomically, when the trace's job is due, which is
   * nearly always when the trace is ready. Spans come decoded, in first-arrival order, each span id
   * once (an exporter that retried a request the receiver had accepted appends its spans twice):
   * its first copy, as the memory driver keeps (`TraceByteBuffer.add`; `groupSpansByTrace`).
   * `stored` counts the batches appended so far and `appended` the spans (a batch sent again is
   * neither stored nor counted again; a span repeated in another batch is counted), for
   * `markScored`.
   */
  async read(traceId: string): Promise<BufferedTrace> {
    return (await this.readMany([traceId], '', 0))[0]!;
  }

  /**
   * {@link RedisSpanBuffer.read} for many traces in one batch (`sendBatch`), in order, by a
   * `claimer` (a job holding many traces), so that of two jobs holding one trace only one scores
   * it; the claims it takes are a second batch, and one more names the holder of any trace
   * another job claimed in between. An unscored, unclaimed trace becomes the claimer's for good once its root has arrived or
   * it was first seen at or before `claimFirstSeenBy` (now − the max wait): from then on its
   * claimer can tell when it is ready from its state alone. Any other trace comes back with
   * `held: false` and no spans: claimed by another (`claimedBy`), scored, not buffered, or
   * rootless and young (no one holds it: the job of the request that brings its root will).
   */
  async readMany(
    traceIds: readonly string[],
    claimer: string,
    claimFirstSeenBy: number,
  ): Promise<BufferedTrace[]> {
    const keys = traceIds.map(traceId => bufferKeyOf(this.prefix, traceId));
    const hashes = (await sendBatch<RedisClient>(this.redis, target =>
      keys.map(key => target.hgetallBuffer(key)),
    )) as Array<Record<string, Buffer>>;
    // A trace with no hash may have been buffered by a receiver of the previous release: moved
    // into this layout, then read again. (Only traces missing here pay for the look.)
    const missing = hashes.flatMap((hash, i) => (Object.keys(hash).length === 0 ? [i] : []));
    if (missing.length > 0) {
      const moved = await sendBatch<BufferCommands>(this.redis, target =>
        missing.map(i =>
          target.spanscoreMigrateV1(
            keys[i]!,
            `${this.prefix}:trace:{${traceIds[i]!}}:spans`,
            `${this.prefix}:trace:{${traceIds[i]!}}:meta`,
            String(this.ttls.unscoredTtlMs),
          ),
        ),
      );
      const again = missing.filter((_, m) => Number(moved[m]) === 1);
      if (again.length > 0) {
        const reread = (await sendBatch<RedisClient>(this.redis, target =>
          again.map(i => target.hgetallBuffer(keys[i]!)),
        )) as Array<Record<string, Buffer>>;
        again.forEach((i, r) => (hashes[i] = reread[r]!));
      }
    }
    const reads = hashes.map(splitHash);
    // An unscored trace no one claimed becomes the claimer's once its root has arrived or its
    // max wait passed: HSETNX, so of two jobs reading it at once one wins and the other sees
    // whose it is. (The trace read a moment ago has a TTL; HSETNX on a key that expired in
    // between would leave a key of one field without one, a race of microseconds at the end of
    // an unscored trace's life.)
    const claims = reads.flatMap((read, i) =>
      claimer !== '' &&
      read.meta.claim === undefined &&
      read.meta.first &&
      (read.meta.root === '1' || Number(read.meta.first) <= claimFirstSeenBy)
        ? [i]
        : [],
    );
    if (claims.length > 0) {
      const won = await sendBatch<RedisClient>(this.redis, target =>
        claims.map(i => target.hsetnx(keys[i]!, 'claim', claimer)),
      );
      claims.forEach((i, c) => {
        if (won[c] === 1) reads[i]!.meta.claim = claimer;
      });
      const lost = claims.filter((_, c) => won[c] !== 1);
      if (lost.length > 0) {
        const holders = await sendBatch<RedisClient>(this.redis, target =>
          lost.map(i => target.hget(keys[i]!, 'claim')),
        );
        lost.forEach((i, l) => {
          reads[i]!.meta.claim = String(holders[l]);
        });
      }
    }
    return reads.map(({ meta, batches }, i) => {
      const traceId = traceIds[i]!;
      const held = claimer === '' || meta.claim === claimer;
      const spans =
        held && batches.length
          ? (groupSpansByTrace(batches.flatMap(decodeSpanBatch)).get(traceId) ?? [])
          : [];
      return {
        progress: toProgress(meta),
        spans,
        stored: held ? Number(meta.k ?? 0) : 0,
        appended: Number(meta.n ?? 0),
        dropped: Number(meta.dropped ?? 0),
        held,
        ...(claimer !== '' &&
          meta.claim !== undefined &&
          meta.claim !== claimer && { claimedBy: meta.claim }),
      };
    });
  }

  /**
   * Marks a trace scored, given what {@link RedisSpanBuffer.read} returned (`stored` batches,
   * `appended` spans); returns how many spans arrived while it was being scored. Without
   * `keepSpans`, three commands in one round trip and no script: the HSET (scored, and the scored
   * batches blanked) comes first, so an append after it finds the trace scored and counts its
   * spans late without storing them; the HINCRBY after it then counts exactly the spans stored
   * since the read; the PEXPIRE sets the scored trace's TTL.
   *
   * Safe to run again, with the same `nowMs` and `again` set, after a try that failed: a command
   * that timed out (Redis paused or slow) may still run, before the retry (one connection keeps
   * its commands' order). With `keepSpans` the script writes the same fields again and counts
   * nothing (`late` is counted by the appends, rescores by `countRescore`): the retry returns the
   * spans appended since the read, those that came after the first try included, which no
   * scoring has read either. Without it, the HINCRBY would take `appended` off `n` twice: `again`
   * runs one script instead, which returns what the first try left when the trace is scored at
   * `nowMs` already, and writes nothing then (see `MARK_SCORED_AGAIN`).
   */
  async markScored(
    traceId: string,
    read: { stored: number; appended: number },
    nowMs: number,
    keepSpans: boolean,
    again = false,
  ): Promise<number> {
    const key = bufferKeyOf(this.prefix, traceId);
    const fields: string[] = ['scored', String(nowMs), 'first', '', 'last', '', 'root', ''];
    if (keepSpans)
      return this.redis.spanscoreMarkScoredKeep(
        key,
        String(read.appended),
        String(this.ttls.scoredTtlMs),
        ...fields,
      );
    for (let b = 0; b < read.stored; b++) fields.push(`b${b}`, '');
    if (again)
      return this.redis.spanscoreMarkScoredAgain(
        key,
        String(read.appended),
        String(this.ttls.scoredTtlMs),
        ...fields,
      );
    const [, racing] = await sendBatch<RedisClient>(this.redis, target => [
      target.hset(key, ...fields),
      target.hincrby(key, 'n', -read.appended),
      target.pexpire(key, this.ttls.scoredTtlMs),
    ]);
    return Number(racing);
  }

  /** Keeps a trace's spans and state `ttlMs` more (while its export is retried). */
  async extend(traceId: string, ttlMs: number): Promise<void> {
    await this.redis.pexpire(bufferKeyOf(this.prefix, traceId), ttlMs);
  }

  /** Late spans counted for a trace. */
  async lateCount(traceId: string): Promise<number> {
    return Number((await this.redis.hget(bufferKeyOf(this.prefix, traceId), 'late')) ?? 0);
  }
}

/**
 * A span batch's digest, as the append script compares batches (16 hex digits of its SHA-1):
 * computed by the receiver, not in Redis, whose one thread appends every trace.
 */
function batchDigest(batch: Buffer): string {
  return createHash('sha1').update(batch).digest('hex').slice(0, 16);
}

/** What {@link RedisSpanBuffer.read} knows of one trace. */
export interface BufferedTrace {
  progress: (BufferProgress & { scored: boolean }) | undefined;
  spans: SpanDigest[];
  stored: number;
  appended: number;
  /** Spans not kept because the trace held `maxSpansPerTrace` already. */
  dropped: number;
  /**
   * False when read with a claimer that does not hold the trace (see
   * {@link RedisSpanBuffer.readMany}): such a read carries no spans. Always true without one.
   */
  held: boolean;
  /** Set when read with a claimer and another claimer holds the trace: who does. */
  claimedBy?: string;
}

/** The key of a trace's buffer hash (exported for tests and tools that inspect Redis). */
export function bufferKeyOf(prefix: string, traceId: string): string {
  return `${prefix}:trace:{${traceId}}:buffer`;
}

/** A buffer hash as HGETALL returns it: its state fields, and its non-blank batches in order. */
function splitHash(hash: Record<string, Buffer>): {
  meta: Record<string, string>;
  batches: Buffer[];
} {
  const meta: Record<string, string> = {};
  const indexed: Array<[number, Buffer]> = [];
  for (const name in hash) {
    const value = hash[name]!;
    if (name.charCodeAt(0) === 98 /* b */) {
      if (value.length > 0) indexed.push([Number(name.slice(1)), value]);
    } else meta[name] = value.toString();
  }
  // A small hash keeps its fields in insertion order, a large one does not.
  indexed.sort((a, b) => a[0] - b[0]);
  return { meta, batches: indexed.map(([, batch]) => batch) };
}

/**
 * A trace whose spans are buffered (one HMGET), for run records: `scoring` once a job scored it
 * (its spans may be kept for late spans or a retried export; its results are being written);
 * `undefined` when nothing is buffered. Works on any connection: no scripts needed.
 */
export async function readPendingTrace(
  redis: RedisClient,
  prefix: string,
  traceId: string,
): Promise<(BufferProgress & { scoring?: boolean }) | undefined> {
  const fields = ['first', 'last', 'root', 'scored'] as const;
  const values = await redis.hmget(bufferKeyOf(prefix, traceId), ...fields);
  const meta: Record<string, string> = {};
  fields.forEach((f, i) => {
    if (values[i] !== null && values[i] !== undefined) meta[f] = values[i];
  });
  const progress = toProgress(meta);
  if (!progress) return undefined;
  const { scored, ...rest } = progress;
  return scored ? { ...rest, scoring: true } : rest;
}

/** A trace's state fields as progress; `first` blank or absent: not buffered, or scored. */
function toProgress(
  meta: Record<string, string>,
): (BufferProgress & { scored: boolean }) | undefined {
  if (!meta.first)
    return meta.scored === undefined
      ? undefined
      : { firstSeenMs: 0, lastSeenMs: 0, rootEnded: true, scored: true };
  return {
    firstSeenMs: Number(meta.first),
    lastSeenMs: Number(meta.last),
    rootEnded: meta.root === '1',
    ...(meta.lw === '1' && meta.lr !== '1' && { awaitingLogs: true }),
    scored: meta.scored !== undefined,
  };
}
