import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli as run } from '../helpers/run-cli.js';
import { decodeOtlpJson } from '../../src/ingest/decode-otlp-json.js';
import { decodeOtlpJsonLogs } from '../../src/ingest/decode-otlp-logs-json.js';
import { groupSpansByTrace } from '../../src/normalize/group-spans-by-trace.js';
import { inspectTrace } from '../../src/normalize/inspect-trace.js';
import type { ResultRow } from '../../src/report/result-row.js';
import { otlpRequest, spanId, traceId } from '../helpers/otlp-json-builder.js';
import { waitFor } from '../helpers/redis.js';
import { serveWithKnownTraffic } from '../helpers/results-traffic.js';

const decode = (body: unknown) => decodeOtlpJson(body).spans;
const NO_TOOLS =
  /the trace records (\d) model call\(s\) but no tool calls, tool definitions or tool results: the instrumentation may not record them \(see docs\/frameworks\.md\)/;

/**
 * Real output of LlamaIndex TS's `OpenAIAgent` traced by Traceloop's LlamaIndex instrumentation
 * (captures/llamaindex.ts): chat spans with empty assistant text, no tool name anywhere.
 */
const LLAMAINDEX = new URL(
  '../fixtures/otlp/captured-llamaindex-0.12.1-traceloop-0.27.0.otlp.json',
  import.meta.url,
).pathname;
/** The OpenTelemetry OpenAI instrumentation's capture: spans and log records (JSON array of both). */
const OTEL_OPENAI = new URL(
  '../fixtures/otlp/captured-opentelemetry-openai-0.21.0.otlp.json',
  import.meta.url,
).pathname;
const FRAMEWORK_SUITE = new URL('../../config/suites/framework-captures.yaml', import.meta.url)
  .pathname;
/** The model calls each scenario made (captures/scenarios.ts: its tool turns, then the answer). */
const MODEL_CALLS: Record<string, number> = {
  'one-tool': 2,
  'two-tools-in-order': 3,
  'same-tool-twice': 2,
};

describe('why a trace cannot be read', () => {
  it('says no tool call was recorded on the LlamaIndex capture, though the models were called', () => {
    const spans = decode(JSON.parse(readFileSync(LLAMAINDEX, 'utf8')));
    const byTrace = groupSpansByTrace(spans);
    expect(byTrace.size).toBe(3);
    for (const [id, traceSpans] of byTrace) {
      const inspection = inspectTrace(id, traceSpans);
      const calls = MODEL_CALLS[inspection.testCaseId!]!;
      expect(inspection).toMatchObject({
        testCaseIdAttribute: 'spanscore.test_case.id',
        testCaseIdOnRoot: true,
        modelCalls: calls,
        toolCalls: [],
        availableTools: [],
      });
      expect(inspection.diagnostics.map(d => d.code)).toEqual(['no_tool_calls_recorded']);
      expect(inspection.diagnostics[0]!.message).toMatch(NO_TOOLS);
      expect(NO_TOOLS.exec(inspection.diagnostics[0]!.message)![1]).toBe(String(calls));
    }
  });

  it('says to send logs too when the model spans come from an instrumentation that writes calls as logs', async () => {
    // captures/opentelemetry-openai.ts: the chat spans, and the messages as log records.
    const [traces, logs] = JSON.parse(readFileSync(OTEL_OPENAI, 'utf8')) as unknown[];
    for (const [id, traceSpans] of groupSpansByTrace(decode(traces))) {
      const inspection = inspectTrace(id, traceSpans);
      expect(inspection.toolCalls).toEqual([]);
      expect(inspection.diagnostics).toEqual([
        {
          code: 'no_tool_calls_recorded',
          message: `the trace records ${MODEL_CALLS[inspection.testCaseId!]} model call(s) from @opentelemetry/instrumentation-openai, which writes the messages and tool calls as OTLP log records, and no log record of this trace arrived: send logs to spanscore too (OTEL_EXPORTER_OTLP_ENDPOINT covers both signals; see "Sending logs" in docs/frameworks.md)`,
        },
      ]);
    }
    const both = [...decode(traces), ...decodeOtlpJsonLogs(logs).spans];
    for (const [id, traceSpans] of groupSpansByTrace(both)) {
      const inspection = inspectTrace(id, traceSpans);
      expect(inspection.diagnostics).toEqual([]);
      expect(inspection.toolCalls.length).toBeGreaterThan(0);
    }
    // inspect names the log records and, per call, the signal that carried it.
    const oneTool = [...groupSpansByTrace(both)].find(
      ([id, spans]) => inspectTrace(id, spans).testCaseId === 'one-tool',
    )![0];
    const table = await run(['inspect', OTEL_OPENAI, '--trace', oneTool, '--format', 'table']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(
      `trace ${oneTool}: 3 span(s), 6 GenAI log record(s), 2 model call(s), root "travel-run"`,
    );
    expect(table.stdout).toContain('requested (log record)');
    const json = await run(['inspect', OTEL_OPENAI, '--format', 'json']);
    const calls = json.stdout
      .trim()
      .split('\n')
      .flatMap(
        l => (JSON.parse(l) as { toolCalls: Array<{ name: string; signal: string }> }).toolCalls,
      );
    expect(calls.map(c => c.signal)).toEqual(Array(5).fill('logs'));
  });

  it('says when the test case id is on a child span only', () => {
    const n = 0x9100;
    const t = traceId(n);
    const spans = decode(
      otlpRequest([
        { traceId: t, spanId: spanId(n, 1), name: 'agent.run', startMs: 0, endMs: 100 },
        {
          traceId: t,
          spanId: spanId(n, 2),
          parentSpanId: spanId(n, 1),
          name: 'execute_tool get_weather',
          startMs: 10,
          endMs: 20,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'get_weather',
            'spanscore.test_case.id': 'weather',
          },
        },
      ]),
    );
    const inspection = inspectTrace(t, spans);
    expect(inspection).toMatchObject({ testCaseId: 'weather', testCaseIdOnRoot: false });
    expect(inspection.diagnostics).toEqual([
      {
        code: 'test_case_id_not_on_root',
        message:
          'the test case id "weather" is on a child span, not on the root span "agent.run": set it on the run\'s root span so every span of the run is covered',
      },
    ]);
  });

  it('finds unparseable arguments, requests no span executed, and a span two conventions read differently', () => {
    const n = 0x9200;
    const t = traceId(n);
    const spans = decode(
      otlpRequest([
        {
          traceId: t,
          spanId: spanId(n, 1),
          name: 'invoke_agent',
          startMs: 0,
          endMs: 100,
          attributes: { 'spanscore.test_case.id': 'x' },
        },
        {
          traceId: t,
          spanId: spanId(n, 2),
          parentSpanId: spanId(n, 1),
          name: 'execute_tool search',
          startMs: 10,
          endMs: 20,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'search',
            'gen_ai.tool.call.arguments': '{"q": "paris"',
            'openinference.span.kind': 'TOOL',
            'tool.name': 'web_search', // read differently by the two conventions
          },
        },
        {
          traceId: t,
          spanId: spanId(n, 3),
          parentSpanId: spanId(n, 1),
          name: 'chat',
          startMs: 30,
          endMs: 40,
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.output.messages': JSON.stringify([
              {
                role: 'assistant',
                parts: [{ type: 'tool_call', id: 'c9', name: 'book', arguments: { id: 1 } }],
              },
            ]),
          },
        },
      ]),
    );
    const { diagnostics } = inspectTrace(t, spans);
    expect(diagnostics.map(d => d.code)).toEqual([
      'unparseable_arguments',
      'requested_not_executed',
      'several_conventions_on_one_span',
    ]);
    expect(diagnostics[2]!.message).toContain(
      `${spanId(n, 2)} (gen-ai-execute-tool: search vs openinference: web_search`,
    );
  });

  it('gives no diagnostic on a well-recorded capture', async () => {
    const { stdout, code } = await run([
      'inspect',
      '--format',
      'json',
      new URL('../fixtures/otlp/captured-langfuse-5.11.1.otlp.json', import.meta.url).pathname,
    ]);
    expect(code).toBe(0);
    const traces = stdout
      .trim()
      .split('\n')
      .map(l => JSON.parse(l) as Record<string, unknown>);
    expect(traces).toHaveLength(3);
    for (const t of traces) {
      expect(Object.keys(t)).toEqual(
        expect.arrayContaining([
          'traceId',
          'testCaseId',
          'testCaseIdAttribute',
          'conventions',
          'toolCalls',
          'availableTools',
          'diagnostics',
        ]),
      );
      expect(t.diagnostics).toEqual([]);
      expect(t.testCaseIdAttribute).toBe('langfuse.trace.metadata.testCaseId');
      expect(t.conventions).toEqual([expect.objectContaining({ id: 'langfuse' })]);
    }
  });

  it('puts the reason in score’s results and in inspect for the LlamaIndex capture', async () => {
    const scored = await run(['score', '--format', 'json', '--suite', FRAMEWORK_SUITE, LLAMAINDEX]);
    expect(scored.code).toBe(1);
    const { results } = JSON.parse(scored.stdout) as { results: ResultRow[] };
    expect(results).toHaveLength(6); // 3 scenarios × tool_correctness and tool_trajectory
    for (const row of results) {
      expect(row.label).toBe('fail');
      expect(row.reason).toMatch(NO_TOOLS);
      expect(NO_TOOLS.exec(row.reason)![1]).toBe(String(MODEL_CALLS[row.testCaseId]));
    }
    const correctness = results.find(
      r => r.testCaseId === 'two-tools-in-order' && r.scorer === 'tool_correctness',
    )!;
    expect(correctness.reason).toMatch(/^missing search_flights, book_flight; the trace records 3/);

    const spans = decode(JSON.parse(readFileSync(LLAMAINDEX, 'utf8')));
    const id = spans.find(s => s.attributes['spanscore.test_case.id'] === 'one-tool')!.traceId;
    const table = await run(['inspect', '--format', 'table', '--trace', id, LLAMAINDEX]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('one-tool (spanscore.test_case.id, on the root span)');
    expect(table.stdout).toMatch(/no_tool_calls_recorded: the trace records 2 model call/);
    const missing = await run(['inspect', '--trace', 'f'.repeat(32), LLAMAINDEX]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no trace ${'f'.repeat(32)} in the inputs`);
  });

  it('keeps the diagnostics in a live run record of the LlamaIndex capture', async () => {
    const served = await serveWithKnownTraffic({
      suites: [new URL('../../config/suites/demo.yaml', import.meta.url).pathname, FRAMEWORK_SUITE],
    });
    try {
      const body = readFileSync(LLAMAINDEX, 'utf8');
      const sent = await fetch(`${served.origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(sent.status).toBe(200);
      const spans = decode(JSON.parse(body));
      const id = spans.find(
        s => s.attributes['spanscore.test_case.id'] === 'two-tools-in-order',
      )!.traceId;
      let record:
        | {
            state: string;
            diagnostics: Array<{ code: string; message: string }>;
            results: ResultRow[];
          }
        | undefined;
      await waitFor(async () => {
        const r = await fetch(`${served.origin}/api/v1/traces/${id}`);
        record = r.ok ? ((await r.json()) as typeof record) : undefined;
        return record?.state === 'scored';
      }, 'the LlamaIndex trace scored');
      expect(record!.diagnostics.map(d => d.code)).toEqual(['no_tool_calls_recorded']);
      expect(record!.diagnostics[0]!.message).toMatch(/the trace records 3 model call/);
      expect(record!.results).toHaveLength(2);
      expect(record!.results.every(r => r.label === 'fail' && NO_TOOLS.test(r.reason))).toBe(true);

      // The inspect view of the scored trace comes from its run record: its spans are gone.
      const inspected = (await (
        await fetch(`${served.origin}/api/v1/traces/${id}/inspect`)
      ).json()) as Record<string, unknown>;
      expect(inspected).toMatchObject({
        source: 'run record',
        state: 'scored',
        testCaseId: 'two-tools-in-order',
        testCaseIdAttribute: 'spanscore.test_case.id',
        conventions: [],
        toolCalls: [],
        availableTools: null,
        diagnostics: [{ code: 'no_tool_calls_recorded', message: record!.diagnostics[0]!.message }],
      });
    } finally {
      await served.close();
    }
  });

  it('serves the inspect view of a buffered trace from its spans, of a scored one from its run record', async () => {
    const served = await serveWithKnownTraffic();
    try {
      const get = async (id: string) => {
        const r = await fetch(`${served.origin}/api/v1/traces/${id}/inspect`);
        return { status: r.status, body: (await r.json()) as Record<string, unknown> };
      };
      // KNOWN_RUNS' "pending" run: one search_flights span, its root never sent.
      const pending = await get(served.ids.pending!);
      expect(pending.status).toBe(200);
      expect(pending.body).toMatchObject({
        source: 'spans',
        state: 'pending',
        spans: 1,
        root: { name: 'execute_tool search_flights' },
        testCaseId: 'book-trip',
        testCaseIdAttribute: 'spanscore.test_case.id',
        // Every extractor that would claim the span (the first wins): GenAI and its fallback.
        conventions: [
          { id: 'gen-ai-execute-tool', executedSpans: 1, requestedSpans: 0 },
          { id: 'gen-ai-tool-name', executedSpans: 1, requestedSpans: 0 },
        ],
        toolCalls: [expect.objectContaining({ name: 'search_flights', source: 'executed' })],
      });
      const scored = await get(served.ids['book-ok']!);
      expect(scored.body).toMatchObject({
        source: 'run record',
        state: 'scored',
        testCaseId: 'book-trip',
        testCaseIdAttribute: 'spanscore.test_case.id',
        conventions: [{ id: 'gen-ai-execute-tool', executedSpans: 2, requestedSpans: 0 }],
        toolCalls: [
          expect.objectContaining({ name: 'search_flights', convention: 'gen-ai-execute-tool' }),
          expect.objectContaining({ name: 'book_flight', convention: 'gen-ai-execute-tool' }),
        ],
        modelCalls: null,
      });
      const none = await get('f'.repeat(32));
      expect(none).toEqual({
        status: 404,
        body: { error: `no spans or run record of trace ${'f'.repeat(32)}` },
      });
      expect((await get('not-a-trace-id')).status).toBe(400);
    } finally {
      await served.close();
    }
  });
});
