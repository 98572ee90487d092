/**
 * The tool-health scenarios (`health-scenarios.ts`) through an MCP client/server pair traced by
 * Traceloop's node SDK with its OpenAI and MCP instrumentations, set up as `mcp.ts` is (one MCP
 * session per run): the server (`mcp-health-server.ts`) answers a tool that throws with an
 * `isError` result, and arguments that fail the tool's schema with the SDK's validation error; a
 * call to a tool the server does not have is refused with a JSON-RPC error, which the agent loop
 * hands back to the model as `{"error": …}`.
 */
import * as mcp from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import * as traceloop from '@traceloop/node-server-sdk';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { toolsAsFunctions } from './mcp-tool-loop.js';
import { HEALTH_SCENARIOS, healthServer } from './health-scenarios.js';
import { MODEL } from './scenarios.js';
import { versionOf, writeFixture } from './write-fixture.js';

const exporter = new InMemorySpanExporter();
traceloop.initialize({
  appName: 'mcp-health-agent',
  exporter,
  disableBatch: true,
  silenceInitializationMessage: true,
  traceloopSyncEnabled: false,
  instrumentModules: { openAI: OpenAI as never, mcp: mcp as never },
});
const tracer = trace.getTracer('app');

for (const scenario of HEALTH_SCENARIOS) {
  const server = await healthServer(scenario);
  const openai = new OpenAI({ baseURL: server.baseURL, apiKey: 'capture' });
  await tracer.startActiveSpan(
    'health-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      await traceloop.withAgent({ name: 'health-agent' }, async () => {
        const client = new mcp.Client({ name: 'health-agent', version: '1.0.0' });
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: ['--import', 'tsx', new URL('./mcp-health-server.ts', import.meta.url).pathname],
          }),
        );
        const functions = await toolsAsFunctions(client);
        const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: scenario.prompt }];
        for (;;) {
          const completion = await openai.chat.completions.create({
            model: MODEL,
            messages,
            tools: functions,
          });
          const message = completion.choices[0]!.message;
          messages.push(message);
          if (!message.tool_calls?.length) break;
          for (const call of message.tool_calls) {
            if (call.type !== 'function') continue;
            let content: string;
            try {
              const result = await client.callTool({
                name: call.function.name,
                arguments: JSON.parse(call.function.arguments) as Record<string, unknown>,
              });
              content = (result.content as Array<{ text?: string }>)
                .map(c => c.text ?? '')
                .join('');
            } catch (error) {
              content = JSON.stringify({ error: (error as Error).message });
            }
            messages.push({ role: 'tool', tool_call_id: call.id, content });
          }
        }
        await client.close();
      });
      span.end();
    },
  );
  await server.close();
}
await traceloop.forceFlush();
writeFixture(
  `captured-mcp-${versionOf('@modelcontextprotocol/sdk')}-traceloop-${versionOf('@traceloop/instrumentation-mcp')}-health`,
  exporter.getFinishedSpans(),
);
