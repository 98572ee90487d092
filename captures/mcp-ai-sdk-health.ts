/**
 * The tool-health scenarios (`health-scenarios.ts`) with the AI SDK 7 (`@ai-sdk/otel`, as
 * `ai-sdk.ts`) calling an MCP server's tools through `@ai-sdk/mcp`'s client over stdio: the
 * server (`mcp-health-server.ts`) answers a tool that throws, and arguments that fail the tool's
 * schema, with a `CallToolResult` whose `isError` is true, which the SDK hands to the model as the
 * tool's result: the `execute_tool` span ends with its status unset, the failure only in the
 * result. A call to a tool the server does not list is the SDK's own `NoSuchToolError`.
 */
import { trace } from '@opentelemetry/api';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createMCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { OpenTelemetry } from '@ai-sdk/otel';
import * as ai from 'ai';
import { HEALTH_SCENARIOS, healthServer } from './health-scenarios.js';
import { MODEL } from './scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('mcp-ai-sdk-health-agent');
trace.setGlobalTracerProvider(provider);
const tracer = provider.getTracer('ai');
ai.registerTelemetry(new OpenTelemetry({ tracer }));

for (const scenario of HEALTH_SCENARIOS) {
  const server = await healthServer(scenario);
  const client = await createMCPClient({
    transport: new StdioMCPTransport({
      command: process.execPath,
      args: ['--import', 'tsx', new URL('./mcp-health-server.ts', import.meta.url).pathname],
    }),
  });
  await tracer.startActiveSpan(
    'health-agent',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      await ai.generateText({
        model: createOpenAICompatible({
          name: 'scripted',
          baseURL: server.baseURL,
          apiKey: 'capture',
        })(MODEL),
        prompt: scenario.prompt,
        tools: await client.tools(),
        stopWhen: ai.stepCountIs(6),
      });
      span.end();
    },
  );
  await client.close();
  await server.close();
}
await provider.forceFlush();
writeFixture(
  `captured-mcp-${versionOf('@modelcontextprotocol/sdk')}-ai-sdk-${versionOf('ai')}-health`,
  exporter.getFinishedSpans(),
);
await provider.shutdown();
