import { z } from 'zod';
import type { Scorer } from '../scorer.js';
import { baseOptionsSchema, parseScorerOptions } from '../scorer-options.js';
import { scored, skipped } from '../score-result.js';
import { nameKey } from '../name-key.js';

const optionsSchema = baseOptionsSchema.extend({
  expectedTools: z.array(z.string().min(1)).optional(),
});

/** Options of {@link toolCorrectness}. */
export type ToolCorrectnessOptions = z.infer<typeof optionsSchema>;

/**
 * Galtea's Tool Correctness: 1 when the deduped, canonical tools used equal `expectedTools` as a
 * set (order and repeats ignored), else 0. Details list the missing and unexpected tools.
 * No `expectedTools`: skipped. `expectedTools: []` passes only when no tool was called.
 */
export const toolCorrectness: Scorer<ToolCorrectnessOptions> = {
  name: 'tool_correctness',
  kind: 'deterministic',
  description: 'Were exactly the expected tools used (as a set, order and repeats ignored)?',
  parseOptions: options => parseScorerOptions(optionsSchema, options),
  score({ trace, testCase, options, aliases }) {
    const expectedTools = testCase?.expectedTools ?? options.expectedTools;
    if (expectedTools === undefined) return skipped('no expectedTools for this test case');
    const key = nameKey(options.normalize, aliases);
    const used = new Map<string, string>();
    for (const call of trace.toolSequence) {
      const k = key.call(call);
      if (!used.has(k)) used.set(k, options.normalize ? call.name : call.rawName);
    }
    const expected = new Map<string, string>();
    for (const name of expectedTools) expected.set(key.expected(name), name);
    // forEach, not copies of the entries filtered and mapped: no pair per entry.
    const missingTools: string[] = [];
    expected.forEach((n, k) => {
      if (!used.has(k)) missingTools.push(n);
    });
    const unexpectedTools: string[] = [];
    used.forEach((n, k) => {
      if (!expected.has(k)) unexpectedTools.push(n);
    });
    const ok = missingTools.length === 0 && unexpectedTools.length === 0;
    const parts: string[] = [];
    if (missingTools.length) parts.push(`missing ${missingTools.join(', ')}`);
    if (unexpectedTools.length) parts.push(`unexpected ${unexpectedTools.join(', ')}`);
    return scored(
      ok ? 1 : 0,
      options.threshold ?? 1,
      ok
        ? `used exactly the expected tools: ${[...expected.values()].join(', ') || 'none'}`
        : parts.join('; '),
      { expectedTools, toolsUsed: [...used.values()], missingTools, unexpectedTools },
    );
  },
};
