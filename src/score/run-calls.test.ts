import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import { assessToolCalls } from '../normalize/assess-tool-calls.js';
import { runRecordPatch } from '../results/to-stored-results.js';
import { otlpRequest, traceId, type SpanInput } from '../../test/helpers/otlp-json-builder.js';
import { JsonText, toolSchemaTrace } from '../../test/helpers/tool-schema-traces.js';
import { runCalls } from './run-calls.js';
import { scoreTrace } from './score-trace.js';
import type { ScoringPlan } from './scoring-plan.js';
import { toolCallFacts } from './tool-call-facts.js';
import { toolHealthPlan } from '../../test/helpers/tool-health-plan.js';

const health = (assertFormats = false): ScoringPlan => toolHealthPlan({ assertFormats });

/** A trace offered `book` with `schema` (JSON text), calling it with each of `args` (JSON texts). */
const trace = (n: number, schema: string, args: string[]): SpanInput[] =>
  toolSchemaTrace(
    n,
    new JsonText(schema),
    args.map(a => new JsonText(a)),
    { tool: 'book' },
  );

const spansOf = (input: SpanInput[]) => decodeOtlpJson(otlpRequest(input)).spans;
const dayOnly = '{"type":"object","properties":{"day":{"type":"string","format":"date"}}}';

describe('runCalls: what a pass found of each call, once', () => {
  it('is the assessment tool_arguments read and the repeats tool_loops found; the record and the counters read it', async () => {
    const args = ['{"day":"tomorrow"}', '{"day":"tomorrow"}', '{"day":"tomorrow"}'];
    const run = await scoreTrace(traceId(501), spansOf(trace(501, dayOnly, args)), health());
    const calls = runCalls(run)!;
    // The very objects the scorer computed: assessed once, never again.
    expect(calls.assessment).toBe(assessToolCalls(calls.trace).calls);
    expect(calls.repeated.size).toBe(3);
    expect(toolCallFacts(run).map(f => [f.checked, f.invalid, f.repeated])).toEqual([
      [true, false, true],
      [true, false, true],
      [true, false, true],
    ]);
    const record = runRecordPatch(run, 0, true);
    expect(record.toolCalls.map(c => [c.argumentProblems, c.repeated ?? false])).toEqual([
      [[], true],
      [[], true],
      [[], true],
    ]);
  });

  it('carries the format assertion the pass ran with to the record', async () => {
    const run = await scoreTrace(
      traceId(502),
      spansOf(trace(502, dayOnly, ['{"day":"tomorrow"}'])),
      health(true),
    );
    const verdict = run.results[0]!.outcomes.find(o => o.scorer === 'tool_arguments')!.result;
    expect(verdict).toMatchObject({ status: 'scored', label: 'fail' });
    expect(runRecordPatch(run, 0, true).toolCalls[0]!.argumentProblems).toEqual([
      '/day: must match format "date"',
    ]);
  });

  it('a schema no check can take leaves tool_arguments skipped with why, and the other results and the record whole', async () => {
    // 3,000 levels: JSON.stringify threw here before, outside any scorer, and the trace was lost.
    const deep = `${'{"items":'.repeat(3_000)}{"type":"string"}${'}'.repeat(3_000)}`;
    const run = await scoreTrace(traceId(503), spansOf(trace(503, deep, ['[["a"]]'])), health());
    expect(run.state).toBe('scored');
    const results = Object.fromEntries(
      run.results[0]!.outcomes.map(o => [o.scorer, o.result.status]),
    );
    expect(results).toEqual({
      tool_errors: 'scored',
      tool_arguments: 'skipped',
      tool_loops: 'scored',
    });
    const record = runRecordPatch(run, 0, true);
    expect(record.toolCalls).toHaveLength(1);
    expect(record.toolCalls[0]!.argumentProblems).toBeNull();
  });
});
