/**
 * The tool-health scenarios (`health-scenarios.ts`) through an MCP client/server pair traced with
 * OpenInference, set up as `mcp-openinference.ts` is: its MCP instrumentation on both transports,
 * its OpenAI instrumentation on the client's model calls (the real `openai` client against the
 * scripted server), and the server's tools in `traceTool` (`mcp-openinference-health-server.ts`).
 * The model's requests carry call ids; the server's tool spans do not. The SDK refuses arguments
 * that fail a tool's schema before the tool runs (no tool span for that call), and a call to a
 * tool the server does not have is refused with a JSON-RPC error, which the agent loop hands back
 * to the model as `{"error": …}`. One MCP session per run.
 */
import { MCPInstrumentation } from '@arizeai/openinference-instrumentation-mcp';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as ClientStdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import OpenAI from 'openai';
import { HEALTH_SCENARIOS, healthServer } from './health-scenarios.js';
import { runMcpToolLoop, toolsAsFunctions } from './mcp-tool-loop.js';
import { startOtlpSink } from './otlp-sink.js';
import {
  recordingProvider,
  versionOf,
  writeFixtureRequest,
  type OtlpJsonRequest,
} from './write-fixture.js';

const { provider, exporter } = recordingProvider('mcp-openinference-health-agent');
trace.setGlobalTracerProvider(provider);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
new MCPInstrumentation().manuallyInstrument({ clientStdioModule: ClientStdioModule });
const openAiInstrumentation = new OpenAIInstrumentation();
openAiInstrumentation.setTracerProvider(provider);
openAiInstrumentation.manuallyInstrument(OpenAI);
const tracer = provider.getTracer('app');
const sink = await startOtlpSink();

for (const scenario of HEALTH_SCENARIOS) {
  const server = await healthServer(scenario);
  const openai = new OpenAI({ baseURL: server.baseURL, apiKey: 'capture', maxRetries: 0 });
  await tracer.startActiveSpan(
    'health-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      const client = new Client({ name: 'health-agent', version: '1.0.0' });
      await client.connect(
        new ClientStdioModule.StdioClientTransport({
          command: process.execPath,
          args: [
            '--import',
            'tsx',
            new URL('./mcp-openinference-health-server.ts', import.meta.url).pathname,
          ],
          env: { ...process.env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: sink.url } as Record<
            string,
            string
          >,
        }),
      );
      const functions = await toolsAsFunctions(client);
      await runMcpToolLoop(openai, client, functions, scenario.prompt, { feedErrors: true });
      // The server exports each tool span as it ends; give the last one time to arrive.
      await new Promise(resolve => setTimeout(resolve, 500));
      await client.close();
      span.end();
    },
  );
  await server.close();
}
await provider.forceFlush();
await sink.close();
const client = JSON.parse(
  new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())),
) as OtlpJsonRequest;
writeFixtureRequest(
  `captured-mcp-${versionOf('@modelcontextprotocol/sdk')}-openinference-${versionOf('@arizeai/openinference-instrumentation-mcp')}-health`,
  client,
  ...sink.requests,
);
await provider.shutdown();
