import type { SessionCutCode } from '../normalize/session-pass.js';
import { markMember, sessionKeys } from './session-keys.js';

/** The scripts {@link markRefusedSessionPart} calls, as `RedisSessionStore` defines them. */
export interface MarkRefusedCommands {
  /** `lua/session-bytes.ts`, on the total's slot. */
  spanscoreSessionBytes(...args: string[]): Promise<[number, number]>;
  /** `lua/refuse-session-part.ts`, on the session's slot. */
  spanscoreRefuseSessionPart(key: string, ...args: string[]): Promise<number>;
}

/** A part admission refused, and the turn it refused. */
export interface RefusedSessionPart {
  sessionId: string;
  traceId: string;
  part: number;
  /** The cut of the part before it ('' for part 1). */
  before: string;
  testCaseId: string | undefined;
}

/** A refused turn's part, as `RedisSessionStore.add` gives it (`AddedSessionTurn.refused`). */
export interface SessionRefusal {
  /** The cut of the part before it (part n \> 1). */
  continues: Exclude<SessionCutCode, 'evicted'> | undefined;
  /** The session's test case id, as `RedisSessionStore.read` gives a part's. */
  testCaseId: string | undefined;
  /** On record as closed (`false`: the marks' bytes were full). */
  marked: boolean;
  /** Refused (and marked) before this call: a retried trace job. */
  again: boolean;
}

/**
 * What the mark of a refused part costs beyond its id (three times: key, member, expiry), the
 * refused turn's trace id and test case id.
 */
const MARK_BYTES = 128;

/**
 * Marks a part admission refused closed (see `refuse-session-part`), with the turn it refused,
 * within the marks' bytes: at most 1/16 of `maxBytes` (64 KiB at least) in all, each mark
 * counted at its ids' bytes and 128, and kept for `lifeMs` (a part's life). `full`: past that,
 * nothing is marked; `raced`: the part was opened (or the session moved on) since the turn asked
 * for admission, nothing is marked and the mark's bytes are given back. Two script calls (three
 * when raced): the total's, then the session's.
 *
 * @param totals - the keys all sessions share, in `lua/session-bytes.ts`'s order.
 */
export async function markRefusedSessionPart(
  commands: MarkRefusedCommands,
  prefix: string,
  totals: readonly string[],
  bounds: { maxBytes: number; lifeMs: number; seenMs?: number | undefined },
  refused: RefusedSessionPart,
  nowMs: number,
): Promise<'marked' | 'raced' | 'full'> {
  const { sessionId, traceId, part, testCaseId } = refused;
  const bytes =
    MARK_BYTES +
    3 * Buffer.byteLength(sessionId) +
    Buffer.byteLength(traceId) +
    Buffer.byteLength(testCaseId ?? '');
  const mark = (delta: number, expiresAtMs: string) =>
    commands.spanscoreSessionBytes(
      ...totals,
      'mark',
      String(nowMs),
      markMember(sessionId, part),
      String(delta),
      expiresAtMs,
      '',
      String(Math.max(65_536, Math.floor(bounds.maxBytes / 16))),
    );
  if ((await mark(bytes, String(nowMs + bounds.lifeMs)))[0] !== 1) return 'full';
  const marked = await commands.spanscoreRefuseSessionPart(
    sessionKeys(prefix, sessionId).base,
    String(part),
    String(nowMs),
    String(bounds.lifeMs),
    testCaseId ?? '',
    refused.before,
    traceId,
    String(Math.max(bounds.lifeMs, bounds.seenMs ?? 0)),
  );
  if (marked === 1) return 'marked';
  await mark(-bytes, '');
  return 'raced';
}
