/**
 * An MCP client/server pair traced with OpenInference: its MCP instrumentation on both transports
 * (the client injects the trace context into each request's `params._meta`, the server extracts
 * it, so the server's tool spans join the client's trace), its OpenAI instrumentation on the
 * client's model calls (the real `openai` client against the scripted server), and the server's
 * tools in `traceTool` (`mcp-openinference-server.ts`, a child process over stdio exporting its
 * spans over OTLP/HTTP to a local sink). One MCP session per run. The test case id is an
 * attribute of the run's root span, as spanscore documents for any framework.
 */
import { MCPInstrumentation } from '@arizeai/openinference-instrumentation-mcp';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as ClientStdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import OpenAI from 'openai';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { runMcpToolLoop, toolsAsFunctions } from './mcp-tool-loop.js';
import { SCENARIOS, scenarioServer } from './scenarios.js';
import { startOtlpSink } from './otlp-sink.js';
import {
  recordingProvider,
  versionOf,
  writeFixtureRequest,
  type OtlpJsonRequest,
} from './write-fixture.js';

const { provider, exporter } = recordingProvider('mcp-openinference-agent');
trace.setGlobalTracerProvider(provider);
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
new MCPInstrumentation().manuallyInstrument({ clientStdioModule: ClientStdioModule });
const openAiInstrumentation = new OpenAIInstrumentation();
openAiInstrumentation.setTracerProvider(provider);
openAiInstrumentation.manuallyInstrument(OpenAI);
const tracer = provider.getTracer('app');
const sink = await startOtlpSink();

for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const openai = new OpenAI({ baseURL: server.baseURL, apiKey: 'capture', maxRetries: 0 });
  await tracer.startActiveSpan(
    'travel-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      const client = new Client({ name: 'travel-agent', version: '1.0.0' });
      await client.connect(
        new ClientStdioModule.StdioClientTransport({
          command: process.execPath,
          args: [
            '--import',
            'tsx',
            new URL('./mcp-openinference-server.ts', import.meta.url).pathname,
          ],
          env: { ...process.env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: sink.url } as Record<
            string,
            string
          >,
        }),
      );
      const functions = await toolsAsFunctions(client);
      const before = sink.spanCount();
      const calls = await runMcpToolLoop(openai, client, functions, scenario.prompt);
      // The server exports each tool span as it ends: wait for them before it is stopped.
      for (let waited = 0; sink.spanCount() < before + calls; waited += 20) {
        if (waited > 10_000) throw new Error('the MCP server did not export its tool spans');
        await new Promise(resolve => setTimeout(resolve, 20));
      }
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
  `captured-mcp-${versionOf('@modelcontextprotocol/sdk')}-openinference-${versionOf('@arizeai/openinference-instrumentation-mcp')}`,
  client,
  ...sink.requests,
);
await provider.shutdown();
