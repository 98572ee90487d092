/**
 * An MCP client/server pair in an agent, traced as OpenLLMetry users do: Traceloop's node SDK
 * `initialize` with its OpenAI and MCP instrumentations (`instrumentModules: { openAI, mcp }`), the
 * agent loop in `withAgent`, the tools listed from and called on an MCP server
 * (`mcp-travel-server.ts`, a child process over stdio) through the SDK's `Client`, and the real
 * `openai` client against the scripted server. The test case id is set as spanscore documents it
 * for any framework: an attribute on a parent span.
 *
 * The MCP instrumentation parents every `tools/call` span under the client's session span, which
 * `connect()` opens. Captured twice: connecting inside each run (the calls land in the run's
 * trace), and once for the whole process (`-shared-session`: they all land in the session's trace,
 * and each run's trace keeps only the model's requested calls).
 */
import * as mcp from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import * as traceloop from '@traceloop/node-server-sdk';
import OpenAI from 'openai';
import { runMcpToolLoop, toolsAsFunctions } from './mcp-tool-loop.js';
import { SCENARIOS, scenarioServer } from './scenarios.js';
import { versionOf, writeFixture } from './write-fixture.js';

const exporter = new InMemorySpanExporter();
traceloop.initialize({
  appName: 'mcp-travel-agent',
  exporter,
  disableBatch: true,
  silenceInitializationMessage: true,
  traceloopSyncEnabled: false, // no prompt registry: Traceloop's cloud is not reachable here
  // The ESM modules are the ones this script uses; the SDK's types name the CommonJS ones.
  instrumentModules: { openAI: OpenAI as never, mcp: mcp as never },
});
const tracer = trace.getTracer('app');

/** A session with the MCP server (a child process over stdio) and its tools as functions. */
async function connectTools(): Promise<{
  client: mcp.Client;
  functions: OpenAI.ChatCompletionFunctionTool[];
}> {
  const client = new mcp.Client({ name: 'travel-agent', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', new URL('./mcp-travel-server.ts', import.meta.url).pathname],
    }),
  );
  return { client, functions: await toolsAsFunctions(client) };
}

for (const mode of ['session-per-run', 'shared-session'] as const) {
  exporter.reset();
  const shared = mode === 'shared-session' ? await connectTools() : undefined;
  for (const scenario of SCENARIOS) {
    const server = await scenarioServer(scenario);
    const openai = new OpenAI({ baseURL: server.baseURL, apiKey: 'capture' });
    await tracer.startActiveSpan(
      'travel-run',
      { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
      async span => {
        await traceloop.withAgent({ name: 'travel-agent' }, async () => {
          const { client, functions } = shared ?? (await connectTools());
          await runMcpToolLoop(openai, client, functions, scenario.prompt);
          if (!shared) await client.close();
        });
        span.end();
      },
    );
    await server.close();
  }
  await shared?.client.close();
  await traceloop.forceFlush();
  const version = `${versionOf('@modelcontextprotocol/sdk')}-traceloop-${versionOf('@traceloop/instrumentation-mcp')}`;
  writeFixture(
    `captured-mcp-${version}${mode === 'shared-session' ? '-shared-session' : ''}`,
    exporter.getFinishedSpans(),
  );
}
