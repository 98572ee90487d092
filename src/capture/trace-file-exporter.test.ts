import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { readTraceFiles } from '../ingest/read-trace-files.js';
import { groupSpansByTrace } from '../normalize/group-spans-by-trace.js';
import { normalizeTrace } from '../normalize/normalize-trace.js';
import { TraceFileExporter } from './trace-file-exporter.js';

/** A root span with two tool spans under it, ended through the real SDK into `exporter`. */
function runAgent(exporter: TraceFileExporter, testCaseId: string): void {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'weather-agent' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('test');
  const root = tracer.startSpan('agent', {
    attributes: { 'spanscore.test_case.id': testCaseId },
  });
  // No context manager here: the tool spans name their parent explicitly.
  const parent = trace.setSpan(ROOT_CONTEXT, root);
  for (const [name, args] of [
    ['geocode', '{"city":"Paris"}'],
    ['weather', '{"lat":48.9,"lon":2.35}'],
  ] as const) {
    const span = tracer.startSpan(
      `execute_tool ${name}`,
      {
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': name,
          'gen_ai.tool.call.arguments': args,
        },
      },
      parent,
    );
    span.setStatus({ code: SpanStatusCode.OK });
    span.end();
  }
  root.end();
}

const dir = () => mkdtemp(join(tmpdir(), 'spanscore-trace-file-'));

describe('TraceFileExporter', () => {
  it('writes OTLP/JSON lines that spanscore reads back as the same traces, tools and service', async () => {
    const path = join(await dir(), 'nested', 'traces', 'runs.jsonl');
    const exporter = new TraceFileExporter(path);
    runAgent(exporter, 'paris');
    runAgent(exporter, 'lyon');
    await exporter.shutdown();

    // SimpleSpanProcessor exports each span on its own: one request per line, 3 spans × 2 runs.
    const lines = (await readFile(path, 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('resourceSpans');

    const { spans, problems } = await readTraceFiles([path]);
    expect(problems).toEqual([]);
    const traces = [...groupSpansByTrace(spans)].map(([id, s]) => normalizeTrace(id, s));
    expect(traces.map(t => [t.testCaseId, t.toolsUsed, t.serviceName])).toEqual([
      ['paris', ['geocode', 'weather'], 'weather-agent'],
      ['lyon', ['geocode', 'weather'], 'weather-agent'],
    ]);
    expect(traces[0]!.toolSequence[1]!.arguments).toEqual({ lat: 48.9, lon: 2.35 });
  });

  it('keeps the order of exports, fails an export it cannot write, and refuses after shutdown', async () => {
    const folder = await dir();
    // The parent "folder" is a file: every write fails, and says so through the callback.
    await writeFile(join(folder, 'blocked'), 'a file, not a folder');
    const blocked = new TraceFileExporter(join(folder, 'blocked', 'runs.jsonl'));
    const failed = await new Promise<ExportResult>(resolve => blocked.export([], resolve));
    expect(failed.code).toBe(ExportResultCode.FAILED);
    expect(failed.error?.message).toMatch(/EEXIST|ENOTDIR/);

    const path = join(folder, 'runs.jsonl');
    const exporter = new TraceFileExporter(path);
    const spansOf = (testCaseId: string): Promise<ReadableSpan[]> =>
      new Promise(resolve => {
        const collected: ReadableSpan[] = [];
        runAgent(
          {
            export: (spans: ReadableSpan[], done: (r: ExportResult) => void) => {
              collected.push(...spans);
              done({ code: ExportResultCode.SUCCESS });
              if (collected.length === 3) resolve(collected);
            },
            shutdown: () => Promise.resolve(),
          } as unknown as TraceFileExporter,
          testCaseId,
        );
      });
    const results: number[] = [];
    const ids = ['first', 'second', 'third'];
    for (const id of ids) exporter.export(await spansOf(id), r => results.push(r.code));
    await exporter.forceFlush();
    expect(results).toEqual([
      ExportResultCode.SUCCESS,
      ExportResultCode.SUCCESS,
      ExportResultCode.SUCCESS,
    ]);
    const { spans } = await readTraceFiles([path]);
    const order = [...groupSpansByTrace(spans)].map(([id, s]) => normalizeTrace(id, s).testCaseId);
    expect(order).toEqual(ids);

    await exporter.shutdown();
    const late = await new Promise<ExportResult>(resolve => exporter.export([], resolve));
    expect(late.code).toBe(ExportResultCode.FAILED);
    expect(late.error?.message).toContain('shut down');
  });
});
