/**
 * LangGraph JS, a chat over several user turns: the prebuilt ReAct agent with a `MemorySaver`
 * checkpointer, each turn one `invoke` (its own trace) with the conversation's
 * `configurable.thread_id`, as LangGraph's docs show a chat, and the test case in the run's
 * `metadata`; traced by OpenInference's LangChain instrumentation, which writes the thread as
 * `session.id` on every span.
 */
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { MODEL } from './scenarios.js';
import {
  SESSION_SCENARIOS,
  SESSION_TOOLS,
  runSessionTool,
  sessionServer,
} from './session-scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('langgraph-support-agent');
const instrumentation = new LangChainInstrumentation();
instrumentation.setTracerProvider(provider);
instrumentation.manuallyInstrument(CallbackManagerModule);

const tools = Object.entries(SESSION_TOOLS).map(([name, t]) =>
  tool(async (args: unknown) => Promise.resolve(JSON.stringify(runSessionTool(name, args))), {
    name,
    description: t.description,
    schema: t.schema,
  }),
);

for (const scenario of SESSION_SCENARIOS) {
  const server = await sessionServer(scenario);
  const llm = new ChatOpenAI({
    model: MODEL,
    apiKey: 'capture',
    configuration: { baseURL: server.baseURL },
  });
  const agent = createReactAgent({ llm, tools, checkpointSaver: new MemorySaver() });
  for (const turn of scenario.turns)
    await agent.invoke(
      { messages: [{ role: 'user', content: turn.user }] },
      {
        configurable: { thread_id: scenario.sessionId },
        metadata: { testCaseId: scenario.testCaseId },
      },
    );
  await server.close();
}
await provider.forceFlush();
writeFixture(
  `captured-langgraph-${versionOf('@langchain/langgraph')}-openinference-${versionOf('@arizeai/openinference-instrumentation-langchain')}-sessions`,
  exporter.getFinishedSpans(),
);
await provider.shutdown();
