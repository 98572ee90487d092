/**
 * The scenarios' tools as Mastra `createTool` tools, for the Mastra captures. `run` runs a tool
 * on its input (default: the scenarios' {@link runTool}); the Arize capture's throws for one city.
 */
import { createTool } from '@mastra/core/tools';
import { TOOLS, runTool } from './scenarios.js';
import { toolSchema } from './tool-schemas.js';

export function mastraTools(run: (name: string, input: unknown) => unknown = runTool) {
  return Object.fromEntries(
    Object.entries(TOOLS).map(([name, t]) => [
      name,
      createTool({
        id: name,
        description: t.description,
        inputSchema: toolSchema(name),
        execute: (input: unknown) => Promise.resolve(run(name, input)),
      }),
    ]),
  );
}
