/**
 * Mastra, a chat over several user turns: an `Agent` with `@mastra/memory` (its documented
 * `InMemoryStore` storage), each turn one `generate()` (its own trace) on the conversation's
 * memory thread (`memory: { thread, resource }`), as Mastra's docs show a chat; the test case in
 * `tracingOptions.metadata`; observability through `@mastra/otel-exporter`, set up as `mastra.ts`
 * is.
 */
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { InMemoryStore } from '@mastra/core/storage';
import { createTool } from '@mastra/core/tools';
import { Memory } from '@mastra/memory';
import { mastraOtelCapture } from './mastra-otel.js';
import { MODEL } from './scenarios.js';
import {
  SESSION_SCENARIOS,
  SESSION_TOOLS,
  runSessionTool,
  sessionServer,
} from './session-scenarios.js';
import { versionOf, writeFixture } from './write-fixture.js';

const tools = Object.fromEntries(
  Object.entries(SESSION_TOOLS).map(([name, t]) => [
    name,
    createTool({
      id: name,
      description: t.description,
      inputSchema: t.schema,
      execute: (input: unknown) => Promise.resolve(runSessionTool(name, input)),
    }),
  ]),
);

const { exported, observability } = mastraOtelCapture('mastra-support-agent');
for (const scenario of SESSION_SCENARIOS) {
  const server = await sessionServer(scenario);
  const agent = new Agent({
    id: 'support-agent',
    name: 'support-agent',
    instructions: 'You help customers with their orders.',
    model: { providerId: 'scripted', modelId: MODEL, url: server.baseURL, apiKey: 'capture' },
    tools,
    memory: new Memory({ storage: new InMemoryStore() }),
  });
  const mastra = new Mastra({
    agents: { supportAgent: agent },
    logger: false,
    observability: observability(),
  });
  for (const turn of scenario.turns)
    await mastra.getAgent('supportAgent').generate(turn.user, {
      maxSteps: 6,
      memory: { thread: scenario.sessionId, resource: 'customer-7' },
      tracingOptions: { metadata: { testCaseId: scenario.testCaseId } },
    });
  await mastra.shutdown();
  await server.close();
}
writeFixture(`captured-mastra-${versionOf('@mastra/core')}-sessions`, exported);
