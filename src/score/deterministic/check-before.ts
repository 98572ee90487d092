import type { NormalizedTrace } from '../../normalize/normalize-trace.js';
import type { ToolCall } from '../../normalize/tool-call.js';
import type { NameKey } from '../name-key.js';
import { scored, type ScoreResult } from '../score-result.js';
import type { BeforeRule } from '../test-case.js';

/**
 * The ordering rules of `before`: each `[a, b]` holds when a call of `a` came before every call of
 * `b` (earlier in the same turn, or in an earlier turn); a `b` never called breaks no rule. The
 * first call that breaks a rule is named with the pair and where each came: in a session, the
 * turns (`issue_refund in turn 1 before any verify_identity (first in turn 2)`), in one trace the
 * calls' positions (`refund at call 1 before any verify (first at call 2)`), or that `a` was
 * never called. Pure.
 */
export function checkBefore(
  trace: NormalizedTrace,
  rules: readonly BeforeRule[],
  key: NameKey,
  options: { normalize: boolean; threshold?: number | undefined },
): ScoreResult {
  const broken: string[] = [];
  const calls = trace.toolSequence;
  const where = (call: ToolCall, index: number): string =>
    call.turn === undefined ? `at call ${index + 1}` : `in turn ${call.turn + 1}`;
  for (const [first, then] of rules) {
    const firstKey = key.expected(first);
    const thenKey = key.expected(then);
    const at = calls.findIndex(c => key.call(c) === thenKey || key.call(c) === firstKey);
    const call = calls[at];
    if (call === undefined || key.call(call) === firstKey) continue;
    const firstAt = calls.findIndex(c => key.call(c) === firstKey);
    const later = calls[firstAt];
    const seen =
      later === undefined
        ? 'never called'
        : later.turn !== undefined && later.turn === call.turn
          ? `first later in turn ${later.turn + 1}`
          : `first ${where(later, firstAt)}`;
    const name = options.normalize ? call.name : call.rawName;
    broken.push(`${name} ${where(call, at)} before any ${first} (${seen})`);
  }
  const rulesText = rules.map(([a, b]) => `${a} before ${b}`).join(', ');
  return scored(
    broken.length ? 0 : 1,
    options.threshold ?? 1,
    broken.length ? `out of order: ${broken.join('; ')}` : `order kept (${rulesText})`,
    { before: rules.map(([a, b]) => [a, b]), outOfOrder: broken },
  );
}
