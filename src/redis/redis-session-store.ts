import type { SpanDigest } from '../ingest/span-digest.js';
import type { OpenSession, SessionCutCode } from '../normalize/session-pass.js';
import type { SessionTraceSpans } from '../score/score-session.js';
import { ADD_SESSION_TRACE } from './lua/add-session-trace.js';
import { MARK_SESSION_SENT } from './lua/mark-session-sent.js';
import { REFUSE_SESSION_PART } from './lua/refuse-session-part.js';
import { RELEASE_SESSION_PART } from './lua/release-session-part.js';
import { SESSION_BYTES } from './lua/session-bytes.js';
import type { RedisClient } from './redis-connection.js';
import type { SessionStoreBounds } from './session-store-bounds.js';
import {
  markRefusedSessionPart,
  type MarkRefusedCommands,
  type SessionRefusal,
} from './mark-refused-session-part.js';
import { parsePartMember, partMember, sessionKeys, sessionTotalKeys } from './session-keys.js';
import { decodeSpanBatch, encodeSpanBatch } from './span-batch-codec.js';

const TRACE_FIELD = 't:';

/**
 * The bound a part was cut at, as written in Redis (the drivers' `SessionCutCode`s that this
 * store writes).
 */
export type StoredSessionCut = Exclude<SessionCutCode, 'evicted'>;

export type { SessionStoreBounds } from './session-store-bounds.js';

/** What adding a turn to its session did. */
export interface AddedSessionTurn {
  /**
   * `added` to `part`; `no_session`: an untagged turn found no session to join (nothing held);
   * `refused`: the turn would have opened `part` and the bytes in all (`sessions.maxBytes`) are
   * full (its turns not held: the part is marked closed, cut `max_bytes`, so that the session's
   * next turn opens the part after it, which continues it; see `refuse-session-part`), or the
   * turn was refused so before (a retried trace job): see `refused`.
   */
  outcome: 'added' | 'no_session' | 'refused';
  /**
   * With `refused`: what the part the turn would have opened is scored alone as (`part`), the
   * cut it continues (part n \> 1) and the session's test case id; `marked` false when the marks'
   * bytes were full, so the part is not on record as closed; `again` when the turn was refused
   * (and marked) before this call. `undefined` when the session moved on each time the turn was
   * added (three tries): no part is known.
   */
  refused?: SessionRefusal | undefined;
  part: number;
  /** Turns the part holds now. */
  traces: number;
  /** When the part's first turn came, Unix ms. */
  firstAtMs: number;
  /** How long from now the part's pass is due (0: at once). */
  delayMs: number;
  /** The part's cut, when it has one (its pass is then due at once). */
  cut: StoredSessionCut | undefined;
  /** An earlier part this turn closed (cut now): its pass is due at once. */
  closed: { part: number; cut: StoredSessionCut } | undefined;
  /** The bytes all sessions hold, as the last accounting call saw them. */
  totalBytes: number | undefined;
}

/** One part of a session, as its pass reads it. */
export interface HeldSessionPart {
  traces: SessionTraceSpans[];
  firstAtMs: number;
  lastAtMs: number;
  bytes: number;
  cut: StoredSessionCut | undefined;
  continues: StoredSessionCut | undefined;
  /** The test case id of the turn that opened the session (part 1's), when it had one. */
  testCaseId?: string | undefined;
  /** The last pass recorded and exported in full, as `passEnded` was given it (`delivered`). */
  sent?: string | undefined;
}

type Reply = [
  string,
  number,
  number,
  number,
  number,
  string,
  number,
  string,
  string,
  number,
  string,
];

interface SessionCommands extends MarkRefusedCommands {
  spanscoreAddSessionTrace(key: string, ...args: Array<string | Buffer>): Promise<Reply>;
  spanscoreReleaseSessionPart(key: string, turns: string): Promise<number>;
  spanscoreMarkSessionSent(key: string, pass: string): Promise<number>;
}

/**
 * The BullMQ driver's sessions in Redis (the layout: `session-keys.ts`). A session is held in
 * parts: its turns go to its current part until a bound cuts it (`maxTraces`, `maxAgeMs` after
 * its first turn, `maxSessionBytes`); a later turn then opens the next part, which continues it.
 * A part's keys live `lifeMs` after its first turn, past its last scheduled pass; a part cut at a
 * bound gives its turns back once its last pass has run (`passEnded`). The bytes all sessions
 * hold are counted on a slot of their own: opening a session or a part is refused when they
 * reach `maxBytes` (a turn joining a part already open is not: held sessions go on, each part
 * bounded by `maxSessionBytes`). Adding a turn is one script on the session's slot, and one on
 * the total's; opening a part, one more of each (admission). A part admission refused is marked
 * closed (cut `max_bytes`, no turns) for as long as a part lives, so that the session's next turn
 * opens the part after it, which says what it continues, and the refused turn is kept on part
 * 1's hash by id, so that adding it again (a retried trace job) is refused as that part again: the
 * marks hold at most 1/16 of `maxBytes` (64 KiB at least) in all; past that a refused part is not
 * marked (`markRefusedSessionPart`).
 */
export class RedisSessionStore {
  private readonly commands: RedisClient & SessionCommands;
  private readonly totals: string[];

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    private readonly bounds: SessionStoreBounds,
    private readonly now: () => number = Date.now,
  ) {
    this.commands = redis as RedisClient & SessionCommands;
    this.commands.defineCommand('spanscoreAddSessionTrace', {
      numberOfKeys: 1,
      lua: ADD_SESSION_TRACE,
    });
    this.commands.defineCommand('spanscoreReleaseSessionPart', {
      numberOfKeys: 1,
      lua: RELEASE_SESSION_PART,
    });
    this.commands.defineCommand('spanscoreMarkSessionSent', {
      numberOfKeys: 1,
      lua: MARK_SESSION_SENT,
    });
    this.commands.defineCommand('spanscoreSessionBytes', { numberOfKeys: 5, lua: SESSION_BYTES });
    this.commands.defineCommand('spanscoreRefuseSessionPart', {
      numberOfKeys: 1,
      lua: REFUSE_SESSION_PART,
    });
    const t = sessionTotalKeys(prefix);
    this.totals = [t.total, t.bytes, t.expiry, t.due, t.marks];
  }

  /**
   * Adds one turn to its session (replacing it when held), unless there is no session and the
   * turn may not open one (`opens`: tagged with a session test case), or it would open a session
   * or part and the bytes in all are full. `ends`: the turn ends the session (its pass is due at
   * once).
   */
  async add(
    sessionId: string,
    traceId: string,
    spans: readonly SpanDigest[],
    nowMs: number,
    turn: { opens: boolean; ends: boolean; testCaseId?: string | undefined },
  ): Promise<AddedSessionTurn> {
    const b = this.bounds;
    const batch = encodeSpanBatch(spans);
    const size = batch.length;
    const key = sessionKeys(this.prefix, sessionId).base;
    let reserved: { part: number; bytes: number } | undefined;
    let totalBytes: number | undefined;
    let closed: AddedSessionTurn['closed'];
    // Bytes admitted for a part this turn did not open after all (another turn opened it, or
    // the session moved on meanwhile) are given back.
    const giveBack = async (): Promise<void> => {
      if (reserved) await this.account(nowMs, 'add', sessionId, reserved.part, -reserved.bytes);
      reserved = undefined;
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      const [outcome, part, traces, first, added, cut, closedPart, closedCut, cont, taken, ended] =
        await this.commands.spanscoreAddSessionTrace(
          key,
          `${TRACE_FIELD}${traceId}`,
          batch,
          String(nowMs),
          String(b.maxTraces),
          String(b.maxAgeMs),
          String(b.maxSessionBytes),
          String(b.lifeMs),
          turn.opens ? '1' : '0',
          String(reserved?.part ?? 0),
          turn.testCaseId ?? '',
          turn.ends ? '1' : '0',
          String(Math.max(b.lifeMs, b.seenMs ?? 0)),
        );
      // A part of the previous release's layout, now counted; a part this turn closed, due now.
      if (taken > 0) await this.account(nowMs, 'add', sessionId, 1, taken, nowMs + b.lifeMs);
      // Closed by this turn's first call, before it asked for admission, or now.
      if (closedPart > 0) {
        closed = { part: closedPart, cut: storedCut(closedCut)! };
        await this.account(nowMs, 'add', sessionId, closed.part, 0, undefined, nowMs);
      }
      const none = { part, traces: 0, firstAtMs: 0, delayMs: 0, cut: undefined, closed };
      if (outcome === 'no_session') return { outcome, ...none, totalBytes };
      if (outcome === 'refused')
        return {
          outcome,
          ...none,
          totalBytes,
          refused: await this.refusal(key, part, cont, turn, 'again'),
        };
      if (outcome === 'admit') {
        await giveBack();
        // Opening: the part is new (age 0) and cut at once when this turn alone fills it.
        const delay =
          turn.ends || b.maxTraces <= 1 || size >= b.maxSessionBytes
            ? 0
            : Math.min(b.idleMs, b.maxAgeMs);
        const [ok, total] = await this.commands.spanscoreSessionBytes(
          ...this.totals,
          'admit',
          String(nowMs),
          partMember(sessionId, part),
          String(size),
          String(nowMs + b.lifeMs),
          String(nowMs + delay),
          String(b.maxBytes),
        );
        totalBytes = total;
        if (ok !== 1) {
          const mark = await markRefusedSessionPart(
            this.commands,
            this.prefix,
            this.totals,
            b,
            { sessionId, traceId, part, before: closedCut, testCaseId: turn.testCaseId },
            nowMs,
          );
          // Another turn opened the part meanwhile: this one joins it.
          if (mark === 'raced') continue;
          const refused = await this.refusal(key, part, closedCut, turn, mark);
          return { outcome: 'refused', ...none, totalBytes, refused };
        }
        reserved = { part, bytes: size };
        continue;
      }
      const partCut = storedCut(cut);
      // A part a turn ended stays ended: a turn after it (an earlier turn scored later) is due
      // at once too, not idleMs later.
      const delayMs =
        turn.ends || ended === '1' || partCut
          ? 0
          : Math.max(0, Math.min(b.idleMs, b.maxAgeMs - (nowMs - first)));
      // Opened as admitted: counted then. Else the bytes this turn added are counted now.
      if (reserved?.part !== part || reserved.bytes !== added) {
        await giveBack();
        totalBytes = await this.account(
          nowMs,
          'add',
          sessionId,
          part,
          added,
          first + b.lifeMs,
          nowMs + delayMs,
        );
      }
      return {
        outcome: 'added',
        part,
        traces,
        firstAtMs: first,
        delayMs,
        cut: partCut,
        closed,
        totalBytes,
      };
    }
    await giveBack();
    return {
      outcome: 'refused',
      part: 0,
      traces: 0,
      firstAtMs: 0,
      delayMs: 0,
      cut: undefined,
      closed,
      totalBytes,
    };
  }

  /**
   * One part of a session, as its pass reads it; `undefined` when it holds no turns (its keys
   * expired, or it was released after its last pass). Its turns come in the order they came
   * (`order`), which a pass keeps between turns that started at the same time, as the memory
   * driver does; the hash's own order is Redis's. Part 1 may be in the previous release's layout
   * (`first` and turns, no `order`): it is read the same.
   */
  async read(sessionId: string, part: number): Promise<HeldSessionPart | undefined> {
    const hash = await this.commands.hgetallBuffer(sessionKeys(this.prefix, sessionId).part(part));
    const traces: SessionTraceSpans[] = [];
    const text = (field: string) => hash[field]?.toString();
    for (const [field, value] of Object.entries(hash))
      if (field.startsWith(TRACE_FIELD))
        traces.push({ traceId: field.slice(TRACE_FIELD.length), spans: decodeSpanBatch(value) });
    if (!traces.length) return undefined;
    const came = new Map(
      text('order')
        ?.split(' ')
        .map((id, i) => [id, i]),
    );
    const at = (t: SessionTraceSpans) => came.get(t.traceId) ?? came.size;
    traces.sort((a, b) => at(a) - at(b));
    const firstAtMs = Number(text('first') ?? 0);
    // Part 1 keeps the test case id of the turn that opened the session.
    const testCaseId =
      part === 1
        ? text('tc')
        : ((await this.commands.hget(sessionKeys(this.prefix, sessionId).base, 'tc')) ?? undefined);
    return {
      testCaseId,
      traces,
      firstAtMs,
      lastAtMs: Number(text('last') ?? firstAtMs),
      bytes: hash.bytes ? Number(text('bytes')) : byteSum(hash),
      cut: storedCut(text('cut')),
      continues: storedCut(text('cont')),
      sent: text('sent'),
    };
  }

  /**
   * A pass of the part begins: it is shown as under way (`OpenSession.scoreAtMs` undefined); or,
   * `atMs` given, it is tried again then (its export failed), unless no longer waiting for one.
   */
  async passStarted(sessionId: string, part: number, atMs = 0): Promise<void> {
    const due = sessionTotalKeys(this.prefix).due;
    await this.commands.zadd(due, 'XX', atMs, partMember(sessionId, part));
  }

  /**
   * A pass of the part has run on `read`, or ended failed. A part cut at a bound (`cut`: the
   * pass's) takes no more turns: its turns are deleted and its bytes leave the total, unless a
   * turn came after the pass read it (the pass BullMQ runs after this one then does it). Any other
   * part is kept for a late turn to score it again, and is no longer due; `delivered`: its pass
   * was recorded and exported, as a later `read` says (`sent`), written alongside (no round trip).
   */
  async passEnded(
    sessionId: string,
    part: number,
    read: HeldSessionPart,
    cut: StoredSessionCut | undefined,
    delivered?: string,
  ): Promise<void> {
    const key = sessionKeys(this.prefix, sessionId).part(part);
    if (cut) {
      const freed = await this.commands.spanscoreReleaseSessionPart(key, `${read.traces.length}`);
      if (freed >= 0) await this.account(this.now(), 'release', sessionId, part);
      return;
    }
    await Promise.all([
      this.account(this.now(), 'scored', sessionId, part),
      delivered !== undefined && this.commands.spanscoreMarkSessionSent(key, delivered),
    ]);
  }

  /**
   * The parts waiting for a pass, soonest first (those under way first of all), at most `limit`:
   * one read of the due set, then two reads per part on its own slot. Not one snapshot: a turn
   * being added (`add` writes its part, then the due set) may be listed with its new turns and
   * the due time the turn before it set, for the time between those two writes.
   */
  async openSessions(limit: number): Promise<OpenSession[]> {
    const due = await this.commands.zrange(
      sessionTotalKeys(this.prefix).due,
      0,
      Math.max(0, limit - 1),
      'WITHSCORES',
    );
    const parts: Array<Promise<OpenSession | undefined>> = [];
    for (let i = 0; i + 1 < due.length; i += 2) {
      const { sessionId, part } = parsePartMember(due[i]!);
      const at = Number(due[i + 1]);
      const key = sessionKeys(this.prefix, sessionId).part(part);
      parts.push(
        this.commands.hmget(key, 'first', 'last', 'bytes', 'order', 'done').then(f => {
          const [first, last, bytes, order, done] = f;
          if (first == null || done != null || !order) return undefined;
          return {
            sessionId,
            part,
            traceIds: order.split(' '),
            firstAtMs: Number(first),
            lastAtMs: Number(last ?? first),
            scoreAtMs: at === 0 ? undefined : at,
            bytes: Number(bytes ?? 0),
          };
        }),
      );
    }
    return (await Promise.all(parts)).filter(s => s !== undefined);
  }

  /** A refused turn's part: what it continues (part n \> 1), its test case id as `read` gives it. */
  private async refusal(
    base: string,
    part: number,
    continues: string,
    { testCaseId }: { testCaseId?: string | undefined },
    mark: 'marked' | 'full' | 'again',
  ): Promise<SessionRefusal> {
    const kept = part === 1 ? undefined : await this.commands.hget(base, 'tc');
    return {
      continues: part > 1 ? (storedCut(continues) ?? 'max_age') : undefined,
      testCaseId: kept ?? testCaseId,
      marked: mark !== 'full',
      again: mark === 'again',
    };
  }

  /** The bytes all sessions hold now, as counted (expired parts taken out first). */
  totalBytes(): Promise<number> {
    return this.account(this.now(), 'scored', '', 0);
  }

  /** One call of the total's script (`lua/session-bytes.ts`); resolves with the total. */
  private async account(
    nowMs: number,
    mode: 'add' | 'scored' | 'release',
    sessionId: string,
    part: number,
    bytes = 0,
    expiresAtMs?: number,
    dueAtMs?: number,
  ): Promise<number> {
    const [, total] = await this.commands.spanscoreSessionBytes(
      ...this.totals,
      mode,
      String(nowMs),
      partMember(sessionId, part),
      String(bytes),
      expiresAtMs === undefined ? '' : String(expiresAtMs),
      dueAtMs === undefined ? '' : String(dueAtMs),
    );
    return total;
  }
}

/** `text` when it names a cut this store writes, else `undefined` (Redis text is not trusted). */
function storedCut(text: string | undefined): StoredSessionCut | undefined {
  return text === 'max_traces' || text === 'max_age' || text === 'max_bytes' ? text : undefined;
}

/** The bytes of a hash's turns (a part of the previous release's layout has no `bytes`). */
function byteSum(hash: Record<string, Buffer>): number {
  let sum = 0;
  for (const [field, value] of Object.entries(hash))
    if (field.startsWith(TRACE_FIELD)) sum += value.length;
  return sum;
}
