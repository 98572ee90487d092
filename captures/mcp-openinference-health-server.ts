/**
 * The MCP server of the OpenInference MCP health capture (`mcp-openinference-health.ts`): the
 * health tools served over stdio by `McpServer`, each run inside OpenInference's `traceTool` (a
 * TOOL span, which records the tool's input but no call id), with OpenInference's MCP
 * instrumentation on the server transport so each request's trace context becomes the parent of
 * its tool span. The SDK validates arguments before the tool runs: a call it refuses has no tool
 * span. Spans go to the capture's OTLP sink (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). Started by the
 * capture as a child process; not run on its own.
 */
import { traceTool } from '@arizeai/openinference-core';
import { MCPInstrumentation } from '@arizeai/openinference-instrumentation-mcp';
import * as ServerStdioModule from '@modelcontextprotocol/sdk/server/stdio.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { HEALTH_TOOLS, runHealthTool } from './health-scenarios.js';

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'health-tools' }),
  spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())],
});
provider.register();
new MCPInstrumentation().manuallyInstrument({ serverStdioModule: ServerStdioModule });

const server = new McpServer({ name: 'health-tools', version: '1.0.0' });
for (const [name, t] of Object.entries(HEALTH_TOOLS)) {
  const traced = traceTool((args: unknown) => runHealthTool(name, args), { name });
  server.registerTool(
    name,
    { description: t.description, inputSchema: t.schema.shape },
    (args: unknown) => ({
      content: [{ type: 'text' as const, text: JSON.stringify(traced(args)) }],
    }),
  );
}
await server.connect(new ServerStdioModule.StdioServerTransport());
