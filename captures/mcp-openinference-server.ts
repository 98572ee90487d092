/**
 * The MCP server of the OpenInference MCP capture (`mcp-openinference.ts`): the scenarios' three
 * tools served over stdio, each run inside OpenInference's `traceTool` (a TOOL span), with
 * OpenInference's MCP instrumentation on the server transport so each request's trace context
 * (`params._meta`) becomes the parent of its tool span. Its spans go to the capture's OTLP sink
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) through the OTLP/HTTP exporter, as a deployed server's
 * would to a collector. Started by the capture as a child process; not run on its own.
 */
import { traceTool } from '@arizeai/openinference-core';
import { MCPInstrumentation } from '@arizeai/openinference-instrumentation-mcp';
import * as ServerStdioModule from '@modelcontextprotocol/sdk/server/stdio.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { TOOLS, runTool } from './scenarios.js';
import { toolSchema } from './tool-schemas.js';

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'travel-tools' }),
  spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())],
});
provider.register(); // the W3C trace context propagator, which the MCP instrumentation uses
new MCPInstrumentation().manuallyInstrument({ serverStdioModule: ServerStdioModule });

const server = new McpServer({ name: 'travel-tools', version: '1.0.0' });
for (const [name, t] of Object.entries(TOOLS)) {
  const traced = traceTool((args: unknown) => runTool(name, args), { name });
  server.registerTool(
    name,
    { description: t.description, inputSchema: toolSchema(name).shape },
    (args: unknown) => ({
      content: [{ type: 'text' as const, text: JSON.stringify(traced(args)) }],
    }),
  );
}
await server.connect(new ServerStdioModule.StdioServerTransport());
