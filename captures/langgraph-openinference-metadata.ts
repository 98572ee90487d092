/**
 * LangGraph JS as in `langgraph-openinference.ts`, tagged the way LangChain users tag a run: the
 * test case id in the RunnableConfig's `metadata` (`agent.invoke(input, { metadata: { testCaseId
 * } })`), which OpenInference writes into each span's JSON `metadata` attribute. No spanscore
 * attribute is set: the id is found as the key `testCaseId` of `metadata`.
 */
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { MODEL, SCENARIOS, TOOLS, runTool, scenarioServer } from './scenarios.js';
import { toolSchema } from './tool-schemas.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('langgraph-travel-agent');
const instrumentation = new LangChainInstrumentation();
instrumentation.setTracerProvider(provider);
instrumentation.manuallyInstrument(CallbackManagerModule);

const tools = Object.entries(TOOLS).map(([name, t]) =>
  tool(async (args: unknown) => Promise.resolve(JSON.stringify(runTool(name, args))), {
    name,
    description: t.description,
    schema: toolSchema(name),
  }),
);

for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const llm = new ChatOpenAI({
    model: MODEL,
    apiKey: 'capture',
    configuration: { baseURL: server.baseURL },
  });
  const agent = createReactAgent({ llm, tools });
  await agent.invoke(
    { messages: [{ role: 'user', content: scenario.prompt }] },
    { metadata: { testCaseId: scenario.testCaseId } },
  );
  await server.close();
}
await provider.forceFlush();
writeFixture(
  `captured-langgraph-${versionOf('@langchain/langgraph')}-openinference-${versionOf('@arizeai/openinference-instrumentation-langchain')}-metadata`,
  exporter.getFinishedSpans(),
);
await provider.shutdown();
