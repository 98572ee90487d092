/**
 * The MCP server of the MCP capture (`mcp.ts`): the scenarios' three tools served over stdio by
 * `@modelcontextprotocol/sdk`'s `McpServer`, each answering with its result as JSON text, as MCP
 * servers commonly do. Started by the capture as a child process; not run on its own.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { TOOLS, runTool } from './scenarios.js';
import { toolSchema } from './tool-schemas.js';

const server = new McpServer({ name: 'travel-tools', version: '1.0.0' });
for (const [name, t] of Object.entries(TOOLS))
  server.registerTool(
    name,
    { description: t.description, inputSchema: toolSchema(name).shape },
    (args: unknown) => ({
      content: [{ type: 'text' as const, text: JSON.stringify(runTool(name, args)) }],
    }),
  );
await server.connect(new StdioServerTransport());
