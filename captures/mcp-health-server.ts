/**
 * The MCP server of the MCP health capture (`mcp-health.ts`): the two health tools served over
 * stdio by `@modelcontextprotocol/sdk`'s `McpServer`, each answering with its result as JSON text.
 * The SDK validates each call's arguments against the tool's input schema, and answers a tool that
 * throws with a `CallToolResult` whose `isError` is true and whose text is the error. Started by the
 * capture as a child process; not run on its own.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { HEALTH_TOOLS, runHealthTool } from './health-scenarios.js';

const server = new McpServer({ name: 'health-tools', version: '1.0.0' });
for (const [name, t] of Object.entries(HEALTH_TOOLS))
  server.registerTool(
    name,
    { description: t.description, inputSchema: t.schema.shape },
    (args: unknown) => ({
      content: [{ type: 'text' as const, text: JSON.stringify(runHealthTool(name, args)) }],
    }),
  );
await server.connect(new StdioServerTransport());
