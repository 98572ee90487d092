/**
 * LangSmith's JS SDK in OTel mode as its docs show it: `LANGSMITH_TRACING=true` and
 * `LANGSMITH_OTEL_ENABLED=true`, `initializeOTEL()` (its own tracer provider, span processor and
 * `LangSmithOTLPTraceExporter`), the agent and each tool in `traceable` (`run_type: 'chain'` and
 * `'tool'`), and the real `openai` client wrapped by `wrapOpenAI` against the scripted server.
 * The exporter sends OTLP/protobuf to a local sink in place of LangSmith's endpoint; the spans kept
 * are exactly those it exported, with the attributes its exporter rewrote on them. The test case
 * id goes in as traceable metadata (`langsmith.metadata.testCaseId`).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  MODEL,
  OPENAI_TOOLS,
  SCENARIOS,
  TOOLS,
  runTool,
  scenarioServer,
  type ToolName,
} from './scenarios.js';
import { versionOf, writeFixture } from './write-fixture.js';

// A local sink stands in for LangSmith's API: `/info` answers that it supports nothing special,
// and the OTLP endpoint (`/otel/v1/traces`) takes every export.
let requests = 0;
const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url === '/otel/v1/traces') {
      requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    } else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>(resolve => sink.listen(0, '127.0.0.1', resolve));

process.env.LANGSMITH_TRACING = 'true';
process.env.LANGSMITH_OTEL_ENABLED = 'true';
process.env.LANGSMITH_ENDPOINT = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
process.env.LANGSMITH_API_KEY = 'capture';
process.env.LANGSMITH_PROJECT = 'travel-agent';

// The SDK reads its tracing mode when its modules load, so they load after the env is set.
const { initializeOTEL } = await import('langsmith/experimental/otel/setup');
const { traceable } = await import('langsmith/traceable');
const { wrapOpenAI } = await import('langsmith/wrappers');
const { Client } = await import('langsmith');
// One client for every run, so its batched runs can be awaited before the spans are flushed.
const client = new Client();

const exported: ReadableSpan[] = [];
const { DEFAULT_LANGSMITH_SPAN_PROCESSOR } = initializeOTEL({
  exporterConfig: {
    // Called on each span the exporter sends, before it rewrites the span's attributes in place:
    // keeping the span keeps what went on the wire.
    transformExportedSpan: span => {
      exported.push(span);
      return span;
    },
  },
});

const tools = Object.fromEntries(
  Object.keys(TOOLS).map(name => [
    name,
    traceable(async (args: unknown) => Promise.resolve(runTool(name, args)), {
      name,
      run_type: 'tool',
      client,
    }),
  ]),
) as Record<ToolName, (args: unknown) => Promise<unknown>>;

for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const openai = wrapOpenAI(new OpenAI({ baseURL: server.baseURL, apiKey: 'capture' }), {
    client,
  });
  const agent = traceable(
    async (prompt: string) => {
      const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }];
      for (;;) {
        const completion = await openai.chat.completions.create({
          model: MODEL,
          messages,
          tools: OPENAI_TOOLS,
        });
        const message = completion.choices[0]!.message;
        messages.push(message);
        if (!message.tool_calls?.length) return message.content;
        for (const call of message.tool_calls) {
          if (call.type !== 'function') continue;
          const result = await tools[call.function.name as ToolName](
            JSON.parse(call.function.arguments),
          );
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
        }
      }
    },
    {
      name: 'travel-agent',
      run_type: 'chain',
      metadata: { testCaseId: scenario.testCaseId },
      client,
    },
  );
  await agent(scenario.prompt);
  await server.close();
}
await client.awaitPendingTraceBatches();
await DEFAULT_LANGSMITH_SPAN_PROCESSOR.forceFlush();
if (requests === 0) throw new Error('the LangSmith exporter sent nothing');
writeFixture(`captured-langsmith-${versionOf('langsmith')}`, exported);
sink.close();
