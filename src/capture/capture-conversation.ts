import { randomUUID } from 'node:crypto';
import { setAttribute } from '../ingest/span-digest.js';
import type { NormalizedTrace } from '../normalize/normalize-trace.js';
import { sessionTrace } from '../normalize/session-trace.js';
import { SPANSCORE_ATTRIBUTES } from '../semconv/attributes.js';
import { captureTrace, type CapturedTrace, type CaptureTraceOptions } from './capture-trace.js';

/** Options of {@link captureSession}: a turn's capture options, and the session's id. */
export interface CaptureSessionOptions extends Omit<CaptureTraceOptions, 'name'> {
  /** The session id every turn's root carries (`spanscore.session.id`). @defaultValue a UUID */
  sessionId?: string;
}

/**
 * What {@link captureSession} returns: the conversation read as one trace, as spanscore scores a
 * session (every turn's calls in order, each with its `turn`; see `sessionTrace`), so that every
 * matcher asserts on the whole conversation, and `toPassScorer` takes a session test case
 * (`turns`, `before`); plus each turn's own capture, for assertions on one turn.
 */
export interface CapturedSession<T = unknown> extends NormalizedTrace {
  readonly session: NonNullable<NormalizedTrace['session']>;
  /** Each turn's capture, in order: `expect(conversation.turns[1]).toHaveCalledTool(…)`. */
  readonly turns: ReadonlyArray<CapturedTrace<T>>;
  /** The tool names of the whole conversation, in order, repeats kept. */
  readonly toolNames: string[];
  /** The alias map the turns were normalized with. */
  readonly aliases: ReadonlyMap<string, string>;
}

/**
 * Captures a conversation: `fn` gets a `turn` function and calls it once per user turn, with the
 * turn's work (a `captureTrace` of its own, as a live app writes one trace per turn, its root
 * carrying the session id and the test case id). Turns run one after another, in the order
 * `turn` is called; what each returned is its capture's `result`. When `fn` returns, the
 * conversation has ended: the last turn's root carries `spanscore.session.end = true`, so its
 * trace, scored or sent as spanscore reads any, ends its session at once (not `sessions.idleMs`
 * later). A throw in a turn or in `fn` is rethrown unchanged.
 *
 * @example
 * ```ts
 * const chat = await captureSession(async turn => {
 *   await turn(() => agent.chat('Refund order A1'));
 *   await turn(() => agent.chat('My date of birth is 1990-01-01'));
 * });
 * expect(chat.turns[1]).toHaveCalledToolsInOrder(['verify_identity', 'issue_refund']);
 * await expect(chat).toPassScorer('tool_trajectory', { before: [['verify_identity', 'issue_refund']] });
 * ```
 */
export async function captureSession<T>(
  fn: (turn: (work: () => T | Promise<T>) => Promise<CapturedTrace<Awaited<T>>>) => unknown,
  options: CaptureSessionOptions = {},
): Promise<CapturedSession<Awaited<T>>> {
  if (typeof fn !== 'function')
    throw new TypeError(`captureSession: expected a function, got ${typeof fn}`);
  const { sessionId = randomUUID(), ...captureOptions } = options;
  if (typeof sessionId !== 'string' || !sessionId)
    throw new TypeError('captureSession: sessionId must be a non-empty string');
  const turns: Array<CapturedTrace<Awaited<T>>> = [];
  let running: Promise<unknown> = Promise.resolve();
  await fn(work => {
    const captured = running.then(() =>
      captureTrace(work, {
        ...captureOptions,
        name: `turn ${turns.length + 1}`,
        rootAttributes: { [SPANSCORE_ATTRIBUTES.sessionId]: sessionId },
      }),
    );
    running = captured.then(
      t => turns.push(t),
      () => undefined,
    );
    return captured;
  });
  await running;
  if (turns.length === 0) throw new TypeError('captureSession: no turn was captured (call turn())');
  // The conversation ended when `fn` returned: its last turn says so, as a live app's last turn
  // would (a turn cannot know it is the last while it runs, so its root is marked now).
  const lastRoot = turns[turns.length - 1]!.root;
  if (lastRoot) setAttribute(lastRoot.attributes, SPANSCORE_ATTRIBUTES.sessionEnd, true);
  const whole = sessionTrace(sessionId, turns);
  const aliases = turns[0]!.aliases;
  return Object.assign(whole, {
    session: whole.session!,
    turns,
    toolNames: whole.toolSequence.map(c => c.name),
    aliases,
  });
}
