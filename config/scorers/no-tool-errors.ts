import { defineScorer } from 'spanscore';

/**
 * Example custom scorer: passes when no tool call in the trace failed. Suites load it with
 * `customScorers: [../scorers/no-tool-errors.ts]`; TypeScript runs as is, no build step.
 */
export default defineScorer({
  name: 'no_tool_errors',
  kind: 'deterministic',
  description: 'Every tool call succeeded',
  threshold: 1,
  score(trace) {
    const failed = trace.toolSequence.filter(call => call.status === 'error');
    if (trace.toolSequence.length === 0) return { status: 'skipped', reason: 'no tool calls' };
    return {
      score: failed.length === 0 ? 1 : 0,
      reason:
        failed.length === 0
          ? 'every tool call succeeded'
          : `failed: ${failed.map(c => `${c.name} (${c.error ?? 'error'})`).join(', ')}`,
      details: { failedTools: failed.map(c => c.name) },
    };
  },
});
