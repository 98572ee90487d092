import { z } from 'zod';
import type { ToolCall } from '../../normalize/tool-call.js';
import type { Scorer } from '../scorer.js';
import { baseOptionsSchema, parseScorerOptions } from '../scorer-options.js';
import { scored, skipped } from '../score-result.js';
import { nameKey } from '../name-key.js';

const optionsSchema = baseOptionsSchema.extend({
  /**
   * How a flexible (non-strict) order is checked. `subsequence` (default): the expected tools
   * appear in the calls in that relative order, extra calls anywhere, as the seed documents say.
   * `mastra`: Mastra's code, which places each expected tool at its first call and requires those
   * positions to increase, so `[b, a, b]` fails `[a, b]` and a repeated expected name never passes.
   */
  orderMode: z.enum(['subsequence', 'mastra']).default('subsequence'),
  expectedTool: z.string().min(1).optional(),
  expectedToolOrder: z.array(z.string().min(1)).optional(),
  strictMode: z.boolean().optional(),
});

/** Options of {@link toolCallAccuracy}. */
export type ToolCallAccuracyOptions = z.infer<typeof optionsSchema>;

/**
 * The seed's code-based tool call accuracy scorer, binary.
 *
 * Single-tool mode (`expectedTool`): lenient passes when the tool was called at all; strict passes
 * only when exactly one call was made and it is that tool. Order mode (`expectedToolOrder`, which
 * then decides alone): strict passes when the calls are exactly that sequence, repeats included;
 * flexible passes when the expected tools appear in order among the calls (see `orderMode`).
 * No calls at all scores 0. No `expectedTool` and no non-empty `expectedToolOrder`: skipped.
 * Expectations come from the test case, else from the scorer's options.
 */
export const toolCallAccuracy: Scorer<ToolCallAccuracyOptions> = {
  name: 'tool_call_accuracy',
  kind: 'deterministic',
  description: 'Was the expected tool called (strict: only it), or the expected sequence followed?',
  parseOptions: options => parseScorerOptions(optionsSchema, options),
  score({ trace, testCase, options, aliases }) {
    const expectedTool = testCase?.expectedTool ?? options.expectedTool;
    const expectedOrder = testCase?.expectedToolOrder ?? options.expectedToolOrder;
    const strict = testCase?.strictMode ?? options.strictMode ?? false;
    const threshold = options.threshold ?? 1;
    const key = nameKey(options.normalize, aliases);
    const actual = trace.toolSequence.map(key.call);
    const shown = trace.toolSequence.map(options.normalize ? nameOf : rawNameOf);
    const orderMode = expectedOrder !== undefined && expectedOrder.length > 0;
    if (!orderMode && expectedTool === undefined) {
      // Mastra scores an empty expectedToolOrder alone as 0; there is nothing to compare, so skip.
      if (expectedOrder !== undefined && options.orderMode === 'mastra') {
        return scored(0, threshold, 'expectedToolOrder is empty and no expectedTool is given', {
          actualTools: shown,
        });
      }
      return skipped('no expectedTool or expectedToolOrder for this test case');
    }
    const details: Record<string, unknown> = {
      mode: orderMode ? 'order' : 'single',
      strictMode: strict,
      orderMode: options.orderMode,
      expectedTool,
      expectedToolOrder: expectedOrder,
      actualTools: shown,
    };
    if (actual.length === 0) {
      return scored(0, threshold, 'no tools were called', details);
    }
    if (orderMode) {
      const expected = expectedOrder.map(key.expected);
      const ok = strict
        ? sameSequence(actual, expected)
        : options.orderMode === 'mastra'
          ? firstOccurrenceOrder(actual, expected)
          : isSubsequence(expected, actual);
      details.correctOrderCalled = ok;
      const what = strict ? 'exactly the sequence' : 'in the relative order';
      return scored(
        ok ? 1 : 0,
        threshold,
        ok
          ? `tools were called ${what} ${expectedOrder.join(' → ')}`
          : `expected ${what} ${expectedOrder.join(' → ')}; calls were ${shown.join(' → ')}`,
        details,
      );
    }
    const want = key.expected(expectedTool!);
    const ok = strict ? actual.length === 1 && actual[0] === want : actual.includes(want);
    details.correctToolCalled = ok;
    let reason: string;
    if (ok)
      reason = strict ? `${expectedTool} was the only tool called` : `${expectedTool} was called`;
    else if (strict && actual.includes(want))
      reason = `${expectedTool} was called, but strict mode allows no other call; calls were ${shown.join(', ')}`;
    else reason = `${expectedTool} was not called; calls were ${shown.join(', ')}`;
    return scored(ok ? 1 : 0, threshold, reason, details);
  },
};

// Made once, not a closure over the options a trace.
const nameOf = (call: ToolCall): string => call.name;
const rawNameOf = (call: ToolCall): string => call.rawName;

function sameSequence(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** True when `needle` appears in `haystack` in order, other items between (greedy, linear). */
export function isSubsequence(needle: readonly string[], haystack: readonly string[]): boolean {
  let i = 0;
  for (const item of haystack) if (i < needle.length && item === needle[i]) i++;
  return i === needle.length;
}

/** Mastra's `checkToolOrder` in flexible mode: first occurrences must strictly increase. */
function firstOccurrenceOrder(actual: readonly string[], expected: readonly string[]): boolean {
  let last = -1;
  for (const name of expected) {
    const index = actual.indexOf(name);
    if (index === -1 || index <= last) return false;
    last = index;
  }
  return true;
}
