import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import { normalizeTrace } from '../normalize/normalize-trace.js';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { BUILTIN_SCORERS } from './builtin-scorers.js';
import { scorerVersion, type ResolvedScorer } from './run-scorers.js';

const resolve = (name: string, options: Record<string, unknown>): ResolvedScorer => {
  const scorer = BUILTIN_SCORERS.get(name)!;
  return { scorer, options: scorer.parseOptions(options) };
};

describe('scorerVersion', () => {
  it('is the same for the same configuration, whatever the key order, and differs when an option does', () => {
    const a = scorerVersion(resolve('tool_trajectory', { match: 'exact', args: 'subset' }));
    const b = scorerVersion(resolve('tool_trajectory', { args: 'subset', match: 'exact' }));
    const c = scorerVersion(resolve('tool_trajectory', { match: 'in_order', args: 'subset' }));
    const d = scorerVersion(resolve('tool_correctness', {}));
    expect(a).toMatch(/^[0-9a-f]{12}$/);
    expect(b).toBe(a);
    expect(new Set([a, c, d]).size).toBe(3);
  });

  it('changes with a revision past the first, and revision 1 is the version without one', () => {
    const scorer = BUILTIN_SCORERS.get('tool_loops')!;
    const options = scorer.parseOptions({});
    const unrevised = scorerVersion({ scorer, options });
    expect(scorerVersion({ scorer: { ...scorer, revision: 1 }, options })).toBe(unrevised);
    expect(scorerVersion({ scorer: { ...scorer, revision: 2 }, options })).not.toBe(unrevised);
    // tool_errors was revised when refused calls began to count as failed.
    const errors = BUILTIN_SCORERS.get('tool_errors')!;
    const errorOptions = errors.parseOptions({});
    expect(errors.revision).toBe(2);
    expect(scorerVersion({ scorer: errors, options: errorOptions })).not.toBe(
      scorerVersion({ scorer: { ...errors, revision: undefined }, options: errorOptions }),
    );
  });
});

describe('NormalizedTrace.agentName', () => {
  it("is the root's gen_ai.agent.name, else the first span's, else undefined", () => {
    const spans = (rootAgent?: string) =>
      decodeOtlpJson(
        otlpRequest([
          {
            traceId: traceId(5),
            spanId: spanId(5, 1),
            name: 'root',
            startMs: 0,
            endMs: 9,
            attributes: rootAgent ? { 'gen_ai.agent.name': rootAgent } : {},
          },
          {
            traceId: traceId(5),
            spanId: spanId(5, 2),
            parentSpanId: spanId(5, 1),
            name: 'child',
            startMs: 1,
            endMs: 2,
            attributes: { 'gen_ai.agent.name': 'sub-agent' },
          },
        ]),
      ).spans;
    expect(normalizeTrace(traceId(5), spans('planner')).agentName).toBe('planner');
    expect(normalizeTrace(traceId(5), spans()).agentName).toBe('sub-agent');
    expect(normalizeTrace(traceId(5), spans().slice(0, 1)).agentName).toBeUndefined();
  });
});
