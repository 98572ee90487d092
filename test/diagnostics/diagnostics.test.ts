import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli as run } from '../helpers/run-cli.js';
import { decodeOtlpJson } from '../../src/ingest/decode-otlp-json.js';
import { inspectTrace } from '../../src/normalize/inspect-trace.js';
import type { ResultRow } from '../../src/report/result-row.js';
import { blindAgentTrace } from '../helpers/blind-trace.js';
import { otlpRequest, spanId, traceId } from '../helpers/otlp-json-builder.js';
import { waitFor } from '../helpers/redis.js';
import { serveWithKnownTraffic } from '../helpers/results-traffic.js';

const decode = (body: unknown) => decodeOtlpJson(body).spans;
const NO_TOOLS =
  /the trace records 2 model call\(s\) but no tool calls, tool definitions or tool results: the instrumentation may not record them \(see docs\/frameworks\.md\)/;

describe('why a trace cannot be read', () => {
  it('says no tool call was recorded although models were called, and that the id is on a child span', () => {
    const { traceId: id, body } = blindAgentTrace(0x9100, 'weather');
    const inspection = inspectTrace(id, decode(body));
    expect(inspection).toMatchObject({
      testCaseId: 'weather',
      testCaseIdAttribute: 'spanscore.test_case.id',
      testCaseIdOnRoot: false,
      modelCalls: 2,
      toolCalls: [],
    });
    expect(inspection.diagnostics.map(d => d.code)).toEqual([
      'no_tool_calls_recorded',
      'test_case_id_not_on_root',
    ]);
    expect(inspection.diagnostics[0]!.message).toMatch(NO_TOOLS);
  });

  it('finds unparseable arguments, requests no span executed, and a span two conventions claim', () => {
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
            'tool.name': 'search',
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
    const codes = inspectTrace(t, spans).diagnostics.map(d => d.code);
    expect(codes).toEqual([
      'unparseable_arguments',
      'requested_not_executed',
      'several_conventions_on_one_span',
    ]);
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

  it('puts the reason in score’s result and in inspect, and names a missing --trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-blind-'));
    const { traceId: id, body } = blindAgentTrace(0x9300, 'weather');
    writeFileSync(join(dir, 'trace.json'), JSON.stringify(body));
    writeFileSync(
      join(dir, 'suite.yaml'),
      'scorers: [tool_correctness]\ntestCases:\n  - { id: weather, expectedTools: [get_weather] }\n',
    );
    const scored = await run([
      'score',
      '--suite',
      join(dir, 'suite.yaml'),
      join(dir, 'trace.json'),
    ]);
    expect(scored.code).toBe(1);
    const [row] = scored.stdout
      .trim()
      .split('\n')
      .map(l => JSON.parse(l) as ResultRow);
    expect(row!.reason).toMatch(/^missing get_weather; /);
    expect(row!.reason).toMatch(NO_TOOLS);

    const table = await run([
      'inspect',
      '--format',
      'table',
      '--trace',
      id,
      join(dir, 'trace.json'),
    ]);
    expect(table.stdout).toContain('weather (spanscore.test_case.id, on a child span)');
    expect(table.stdout).toMatch(/no_tool_calls_recorded: the trace records 2 model call/);
    const missing = await run(['inspect', '--trace', 'f'.repeat(32), join(dir, 'trace.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no trace ${'f'.repeat(32)} in the inputs`);
  });

  it('keeps the diagnostics in a live run record', async () => {
    const served = await serveWithKnownTraffic({}, {}, {});
    try {
      const { traceId: id, body } = blindAgentTrace(0x9400, 'weather-lisbon');
      const sent = await fetch(`${served.origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(sent.status).toBe(200);
      let record:
        { state: string; diagnostics: Array<{ code: string }>; results: ResultRow[] } | undefined;
      await waitFor(async () => {
        const r = await fetch(`${served.origin}/api/v1/traces/${id}`);
        record = r.ok ? ((await r.json()) as typeof record) : undefined;
        return record?.state === 'scored';
      }, 'the blind trace scored');
      expect(record!.diagnostics.map(d => d.code)).toEqual([
        'no_tool_calls_recorded',
        'test_case_id_not_on_root',
      ]);
      expect(record!.results.every(r => NO_TOOLS.test(r.reason))).toBe(true);
    } finally {
      await served.close();
    }
  });
});
