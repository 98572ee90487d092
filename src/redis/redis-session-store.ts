import type { SpanDigest } from '../ingest/span-digest.js';
import type { SessionTraceSpans } from '../score/score-session.js';
import { ADD_SESSION_TRACE } from './lua/add-session-trace.js';
import type { RedisClient } from './redis-connection.js';
import { decodeSpanBatch, encodeSpanBatch } from './span-batch-codec.js';

const TRACE_FIELD = 't:';

/** What adding a trace to its session found. */
export interface AddedSessionTrace {
  /**
   * `added`; `full` when the session holds `maxTraces` (the trace was not added); `no_session`
   * when an untagged trace found no session to join.
   */
  outcome: 'added' | 'full' | 'no_session';
  /** Traces the session holds now. */
  traces: number;
  /** When its first trace came, in Unix ms. */
  firstAtMs: number;
}

interface SessionCommands {
  spanscoreAddSessionTrace(key: string, ...args: Array<string | Buffer>): Promise<number[]>;
}

/**
 * The BullMQ driver's open sessions, in Redis: `<prefix>:session:{<session id>}` is a hash of the
 * session's traces (each its spans as one span batch) and when its first came, expiring
 * `maxAgeMs` after that, so a session's traces survive worker restarts, upgrades and failover
 * until it is scored (and after, to score it again when a trace comes late). One key per session,
 * on its own slot of a cluster.
 */
export class RedisSessionStore {
  private readonly commands: RedisClient & SessionCommands;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    private readonly limits: { maxTraces: number; maxAgeMs: number },
  ) {
    this.commands = redis as RedisClient & SessionCommands;
    this.commands.defineCommand('spanscoreAddSessionTrace', {
      numberOfKeys: 1,
      lua: ADD_SESSION_TRACE,
    });
  }

  /**
   * Adds (or replaces) one trace of a session, unless the session is full, or does not exist and
   * the trace may not open it (`opens`: tagged with a session test case); one script call.
   */
  async add(
    sessionId: string,
    traceId: string,
    spans: readonly SpanDigest[],
    nowMs: number,
    opens: boolean,
  ): Promise<AddedSessionTrace> {
    const [added, traces, first] = await this.commands.spanscoreAddSessionTrace(
      this.key(sessionId),
      `${TRACE_FIELD}${traceId}`,
      encodeSpanBatch(spans),
      String(nowMs),
      String(this.limits.maxTraces),
      String(this.limits.maxAgeMs),
      opens ? '1' : '0',
    );
    return {
      outcome: added === 1 ? 'added' : added === -1 ? 'full' : 'no_session',
      traces: traces!,
      firstAtMs: first!,
    };
  }

  /** The session's traces and when its first came; `undefined` when it holds none (expired). */
  async read(
    sessionId: string,
  ): Promise<{ traces: SessionTraceSpans[]; firstAtMs: number } | undefined> {
    const hash = await this.commands.hgetallBuffer(this.key(sessionId));
    const traces: SessionTraceSpans[] = [];
    let firstAtMs = 0;
    for (const [field, value] of Object.entries(hash)) {
      if (field === 'first') firstAtMs = Number(value.toString());
      else if (field.startsWith(TRACE_FIELD))
        traces.push({ traceId: field.slice(TRACE_FIELD.length), spans: decodeSpanBatch(value) });
    }
    return traces.length ? { traces, firstAtMs } : undefined;
  }

  private key(sessionId: string): string {
    return `${this.prefix}:session:{${sessionId}}`;
  }
}
