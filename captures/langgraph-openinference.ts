/**
 * LangGraph JS: the prebuilt ReAct agent (`createReactAgent` from `@langchain/langgraph/prebuilt`)
 * with `ChatOpenAI` against the scripted server, traced by OpenInference's LangChain
 * instrumentation as its docs show it for ESM (`manuallyInstrument` on LangChain's callback
 * manager). The test case id is set with OpenInference's `setAttributes` on the context, so every
 * span of the run carries it.
 */
import { context } from '@opentelemetry/api';
import { setAttributes } from '@arizeai/openinference-core';
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
  await context.with(
    setAttributes(context.active(), { 'spanscore.test_case.id': scenario.testCaseId }),
    () => agent.invoke({ messages: [{ role: 'user', content: scenario.prompt }] }),
  );
  await server.close();
}
await provider.forceFlush();
writeFixture(
  `captured-langgraph-${versionOf('@langchain/langgraph')}-openinference-${versionOf('@arizeai/openinference-instrumentation-langchain')}`,
  exporter.getFinishedSpans(),
);
await provider.shutdown();
