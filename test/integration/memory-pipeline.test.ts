import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createEvaluationExporter } from '../../src/emit/otlp-evaluation-exporter.js';
import { createOtlpHttpReceiver } from '../../src/ingest/otlp-http-receiver.js';
import type { SpanDigest } from '../../src/ingest/span-digest.js';
import { createMemoryTraceAssembler } from '../../src/queue/memory-trace-assembler.js';
import { createEvaluationSpanSink } from '../../src/emit/evaluation-span-sink.js';
import { scoreTrace } from '../../src/score/score-trace.js';
import { parseSuite } from '../../src/suite/load-suite.js';
import { sdkAgentTrace } from '../helpers/sdk-spans.js';
import { CONFIG_DEFAULTS } from '../helpers/config-defaults.js';
import { memoryAssemblyLimits } from '../../src/queue/memory-queue-driver.js';

/** The limits and retries the config gives by default. */
const LIMITS = memoryAssemblyLimits(CONFIG_DEFAULTS);

const SUITE = `
name: e2e
scorers: [tool_correctness, { name: tool_call_accuracy, expectedToolOrder: [search, book] }]
testCases:
  - { id: booking, expectedTools: [search, book] }
  - { id: wrong-tools, expectedTools: [search, book] }
`;

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

async function start<
  T extends {
    close(): Promise<unknown>;
    listen(o: object): Promise<unknown>;
    server: { address(): unknown };
  },
>(app: T): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  closers.push(() => app.close());
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1/traces`;
}

describe('live pipeline, memory driver: exporter → receiver → assembly → scoring → evaluation spans', () => {
  it('scores each completed trace once and writes its evaluation spans back into it', async () => {
    // The OTLP backend that receives evaluation spans: another receiver that keeps what it decodes.
    const backend: SpanDigest[] = [];
    const backendUrl = await start(
      createOtlpHttpReceiver({ sink: { accept: s => (backend.push(...s), Promise.resolve()) } }),
    );

    const suite = await parseSuite(SUITE, 'e2e.yaml', process.cwd());
    const exporter = createEvaluationExporter({ url: backendUrl });
    closers.push(() => exporter.shutdown());
    const assembler = createMemoryTraceAssembler({
      ...LIMITS,
      policy: { settleMs: 150, maxWaitMs: 5000 },
      process: async (id, spans) => {
        await scoreTrace(
          id,
          spans,
          { suites: [suite], rules: [] },
          { sinks: [createEvaluationSpanSink(exporter)] },
        );
      },
    });
    closers.push(() => assembler.close());
    const receiverUrl = await start(createOtlpHttpReceiver({ sink: assembler }));

    const otlp = new OTLPTraceExporter({ url: receiverUrl });
    closers.push(() => otlp.shutdown());
    const runs = {
      booking: sdkAgentTrace('booking', ['search', 'book'], {
        rootName: 'invoke_agent travel',
        service: 'travel-agent',
      }),
      'wrong-tools': sdkAgentTrace('wrong-tools', ['book', 'search', 'cancel'], {
        rootName: 'invoke_agent travel',
        service: 'travel-agent',
      }),
    };
    // Interleave the two traces' spans over several requests, children before roots.
    const all = [...runs.booking, ...runs['wrong-tools']];
    for (const span of [all[0]!, all[3]!, all[1]!, all[4]!, all[5]!, all[2]!, all[6]!]) {
      await new Promise<void>((resolve, reject) =>
        otlp.export([span], r =>
          r.code === ExportResultCode.SUCCESS
            ? resolve()
            : reject(r.error ?? new Error('export failed')),
        ),
      );
    }

    // A trace counts as scored once its export has returned, just after the backend kept its spans.
    const deadline = Date.now() + 5000;
    while ((backend.length < 4 || assembler.stats().scored < 2) && Date.now() < deadline)
      await new Promise(r => setTimeout(r, 25));
    expect(assembler.stats()).toMatchObject({ scored: 2, failed: 0 });

    const evaluations = backend.map(s => ({
      trace: s.traceId,
      parent: s.parentSpanId,
      name: s.name,
      testCase: s.attributes['spanscore.test_case.id'] as string,
      score: s.attributes['gen_ai.evaluation.score.value'],
      label: s.attributes['gen_ai.evaluation.score.label'],
    }));
    const rootOf = (run: ReadableSpan[]) =>
      run.find(s => s.name === 'invoke_agent travel')!.spanContext();
    expect(
      evaluations.sort((a, b) => `${a.testCase}${a.name}`.localeCompare(`${b.testCase}${b.name}`)),
    ).toEqual([
      {
        trace: rootOf(runs.booking).traceId,
        parent: rootOf(runs.booking).spanId,
        name: 'evaluation tool_call_accuracy',
        testCase: 'booking',
        score: 1,
        label: 'pass',
      },
      {
        trace: rootOf(runs.booking).traceId,
        parent: rootOf(runs.booking).spanId,
        name: 'evaluation tool_correctness',
        testCase: 'booking',
        score: 1,
        label: 'pass',
      },
      {
        trace: rootOf(runs['wrong-tools']).traceId,
        parent: rootOf(runs['wrong-tools']).spanId,
        name: 'evaluation tool_call_accuracy',
        testCase: 'wrong-tools',
        score: 0,
        label: 'fail',
      },
      {
        trace: rootOf(runs['wrong-tools']).traceId,
        parent: rootOf(runs['wrong-tools']).spanId,
        name: 'evaluation tool_correctness',
        testCase: 'wrong-tools',
        score: 0,
        label: 'fail',
      },
    ]);
    const wrong = backend.find(
      s =>
        s.attributes['spanscore.test_case.id'] === 'wrong-tools' &&
        s.name === 'evaluation tool_correctness',
    )!;
    expect(wrong.attributes).toMatchObject({
      'spanscore.unexpected_tools': ['cancel'],
      'spanscore.tools_used': ['book', 'search', 'cancel'],
    });
  });
});
