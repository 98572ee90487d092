import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../../ingest/decode-otlp-json.js';
import {
  assessToolCalls,
  MAX_FALLBACK_TOOLS,
  setFallbackSchemas,
  toolsWithoutSchema,
} from '../../normalize/assess-tool-calls.js';
import { normalizeTrace } from '../../normalize/normalize-trace.js';
import type { FallbackSchema } from '../../normalize/schema-source.js';
import { resultIncrementer } from '../../results/minute-aggregates.js';
import { replacedIncrements } from '../../results/replaced-pass.js';
import { toolIncrementer } from '../../results/tool-aggregates.js';
import { runRecordPatch, toStoredResults } from '../../results/to-stored-results.js';
import { otlpRequest } from '../../../test/helpers/otlp-json-builder.js';
import { serviceTraceSpans } from '../../../test/helpers/service-trace.js';
import { toolArguments } from '../deterministic/tool-arguments.js';
import type { ScoreResult } from '../score-result.js';
import { scoreTrace } from '../score-trace.js';
import { toolCallFacts } from '../tool-call-facts.js';
import { createMemorySchemaRegistry } from './memory-schema-registry.js';
import { createSchemaLearningSink } from './schema-learning-sink.js';
import { createSchemaLookup } from './schema-lookup.js';
import { toolHealthPlan } from '../../../test/helpers/tool-health-plan.js';

const airport = {
  type: 'object',
  properties: { from: { type: 'string', pattern: '^[A-Z]{3}$' } },
  required: ['from'],
  additionalProperties: false,
};
const anything = { type: 'object' };
const LEARNED_FROM = '4bf92f3577b34da6a3ce929d0e0e4736';
const learned = (schema: unknown, ageMs = 180_000): FallbackSchema => ({
  schema,
  source: { kind: 'learned', traceId: LEARNED_FROM, seenAtUnixMs: 1000, ageMs },
});

function traceOf(options: Parameters<typeof serviceTraceSpans>[0]) {
  const { traceId, spans } = serviceTraceSpans(options);
  return normalizeTrace(traceId, decodeOtlpJson(otlpRequest(spans)).spans);
}

function score(trace: ReturnType<typeof traceOf>): ScoreResult {
  return toolArguments.score({
    trace,
    testCase: undefined,
    options: toolArguments.parseOptions({}),
    aliases: new Map(),
  }) as ScoreResult;
}

const flights = (args: unknown, offered?: Array<{ name: string; parameters?: unknown }>) =>
  traceOf({
    service: 'travel',
    calls: [{ name: 'search_flights', args }],
    ...(offered && { offered }),
  });

describe('a schema for every call: fallback schemas in tool_arguments', () => {
  it('checks a call whose trace offers no tools against a learned schema, and says so', () => {
    const trace = flights({ from: 'Berlin' });
    setFallbackSchemas(trace, new Map([['search_flights', learned(airport)]]));
    const result = score(trace);
    expect(result).toMatchObject({
      status: 'scored',
      label: 'fail',
      reason:
        'search_flights was called with invalid arguments: /from must match pattern "^[A-Z]{3}$" (checked against the schema seen in trace 4bf92f35…, 3 min ago, learned from another trace: this trace records none for it)',
      details: { schemaSources: { trace: 0, learned: 1, config: 0 } },
    });
    expect(assessToolCalls(trace).calls[0]).toMatchObject({
      offered: null,
      schemaSource: { kind: 'learned', traceId: LEARNED_FROM, ageMs: 180_000 },
    });
  });

  it("lets a trace's own schema win over any fallback, and never checks a tool not offered", () => {
    const own = flights({ from: 'BER' }, [{ name: 'search_flights', parameters: airport }]);
    setFallbackSchemas(own, new Map([['search_flights', learned({ type: 'integer' })]]));
    expect(score(own)).toMatchObject({ label: 'pass' });
    expect(assessToolCalls(own).calls[0]!.schemaSource).toEqual({ kind: 'trace' });

    const notOffered = flights({ from: 'BER' }, [{ name: 'book_flight', parameters: anything }]);
    setFallbackSchemas(notOffered, new Map([['search_flights', learned(airport)]]));
    expect(assessToolCalls(notOffered).calls[0]).toMatchObject({ offered: false });
    expect(assessToolCalls(notOffered).calls[0]!.schemaSource).toBeUndefined();
    expect(toolsWithoutSchema(notOffered)).toEqual([]);
  });

  it('uses a given schema for a tool offered by name alone, and a pass says what it rested on', () => {
    const trace = flights({ from: 'BER' }, [{ name: 'search_flights' }]);
    expect(toolsWithoutSchema(trace)).toEqual(['search_flights']);
    setFallbackSchemas(
      trace,
      new Map([
        [
          'search_flights',
          { schema: airport, source: { kind: 'config', file: 'schemas/travel.json' } },
        ],
      ]),
    );
    expect(score(trace)).toMatchObject({
      label: 'pass',
      reason:
        "the arguments of all 1 checked call(s) match their tools' schemas (1 of them against a schema from outside the trace, which records none: schema given in config (schemas/travel.json))",
      details: { schemaSources: { trace: 0, learned: 0, config: 1 } },
    });
  });

  it('says when schemas were looked up outside the trace and none was found', () => {
    const trace = flights({ from: 'BER' });
    setFallbackSchemas(trace, new Map());
    expect(score(trace)).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining(
        "no schema for them was learned from the service's recent traffic or given in toolHealth.schemas",
      ),
    });
  });

  it('asks for at most MAX_FALLBACK_TOOLS tools, however many distinct names a trace calls', () => {
    const trace = traceOf({
      service: 'travel',
      calls: Array.from({ length: 2000 }, (_, i) => ({ name: `tool_${i}`, args: {} })),
    });
    expect(toolsWithoutSchema(trace)).toHaveLength(MAX_FALLBACK_TOOLS);
  });
});

describe('a schema for every call: through the per-trace loop', () => {
  const plan = toolHealthPlan();
  const spansOf = (options: Parameters<typeof serviceTraceSpans>[0]) => {
    const { traceId, spans } = serviceTraceSpans(options);
    return { traceId, spans: decodeOtlpJson(otlpRequest(spans)).spans };
  };

  it('learns what one trace offered, and checks the next trace of the service (and version) with it', async () => {
    const registry = createMemorySchemaRegistry();
    let clock = 1_000_000;
    const now = () => clock;
    const lookup = createSchemaLookup({ given: [], learned: registry, now, cacheMs: 0 });
    const gets: string[][] = [];
    const counted = {
      ...registry,
      get: (...a: Parameters<typeof registry.get>) => (gets.push([...a[2]]), registry.get(...a)),
    };
    const learnedLookup = createSchemaLookup({ given: [], learned: counted, now, cacheMs: 0 });
    const sink = createSchemaLearningSink(registry, { now });

    const first = spansOf({
      service: 'travel',
      version: '1.2',
      offered: [{ name: 'search_flights', parameters: airport }],
      calls: [{ name: 'search_flights', args: { from: 'BER' } }],
    });
    await scoreTrace(first.traceId, first.spans, plan, { sinks: [sink], schemas: lookup });
    clock += 120_000;

    const second = spansOf({
      service: 'travel',
      version: '1.2',
      calls: [{ name: 'search_flights', args: { from: 'Berlin' } }],
    });
    const run = await scoreTrace(second.traceId, second.spans, plan, { schemas: learnedLookup });
    const args = run.results[0]!.outcomes.find(o => o.scorer === 'tool_arguments')!.result;
    expect(args).toMatchObject({
      label: 'fail',
      reason: expect.stringContaining(
        `(checked against the schema seen in trace ${first.traceId.slice(0, 8)}…, 2 min ago, learned from another trace: this trace records none for it)`,
      ),
    });
    // One lookup, for the one tool without a schema.
    expect(gets).toEqual([['search_flights']]);
    // The record and the per-tool counters say where the schema came from.
    expect(runRecordPatch(run, clock, true).toolCalls[0]!.schemaSource).toEqual({
      kind: 'learned',
      traceId: first.traceId,
      seenAtUnixMs: 1_000_000,
      ageMs: 120_000,
    });
    expect(toolCallFacts(run)[0]).toMatchObject({
      checked: true,
      invalid: true,
      schemaSource: 'learned',
    });
    // Counted as checked against a learned schema, and taken back as such when a rescore
    // replaces the pass (read back from the record).
    const increments = toolIncrementer({ maxServices: 10, maxToolsPerService: 10 });
    const learnedField = ([field]: [string, number]) => field.endsWith('\u001fchl');
    const all: Array<[string, number]> = [];
    increments(toolCallFacts(run), (field, by) => all.push([field, by]));
    const added = all.filter(learnedField);
    expect(added).toHaveLength(1);
    const record = { ...runRecordPatch(run, clock, true), results: toStoredResults(run) };
    expect(
      replacedIncrements(
        record,
        increments,
        resultIncrementer({ maxServices: 10, maxToolsPerService: 10 }),
      )
        .map(([, field, by]): [string, number] => [field, by])
        .filter(learnedField),
    ).toEqual([[added[0]![0], -1]]);

    // Another version of the service learned nothing: skipped, never a pass.
    const other = spansOf({
      service: 'travel',
      version: '2.0',
      calls: [{ name: 'search_flights', args: { from: 'Berlin' } }],
    });
    const otherRun = await scoreTrace(other.traceId, other.spans, plan, { schemas: learnedLookup });
    expect(
      otherRun.results[0]!.outcomes.find(o => o.scorer === 'tool_arguments')!.result,
    ).toMatchObject({
      status: 'skipped',
    });
  });

  it('looks nothing up for a trace whose calls all have schemas of their own', async () => {
    let asked = 0;
    const lookup = () => {
      asked++;
      return Promise.resolve(new Map());
    };
    const own = spansOf({
      service: 'travel',
      offered: [{ name: 'search_flights', parameters: airport }],
      calls: [{ name: 'search_flights', args: { from: 'BER' } }],
    });
    await scoreTrace(own.traceId, own.spans, plan, { schemas: lookup });
    expect(asked).toBe(0);
  });
});
