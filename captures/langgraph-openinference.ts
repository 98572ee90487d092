/**
 * LangGraph JS: the prebuilt ReAct agent (`createReactAgent` from `@langchain/langgraph/prebuilt`)
 * with `ChatOpenAI` against the scripted server, traced by OpenInference's LangChain
 * instrumentation as its docs show it for ESM (`manuallyInstrument` on LangChain's callback
 * manager). Two captures, one per way of tagging a run with its test case:
 *
 * - OpenInference's `setAttributes` on the context with `spanscore.test_case.id`, so every span of
 *   the run carries it (`captured-langgraph-<v>-openinference-<v>`);
 * - the way LangChain users tag a run: the RunnableConfig's `metadata`
 *   (`agent.invoke(input, { metadata: { testCaseId } })`), which OpenInference writes into each
 *   span's JSON `metadata` attribute; no spanscore attribute is set (`…-metadata`).
 */
import { context } from '@opentelemetry/api';
import { setAttributes } from '@arizeai/openinference-core';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { MODEL, SCENARIOS, TOOLS, runTool, scenarioServer, type Scenario } from './scenarios.js';
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

type Agent = ReturnType<typeof createReactAgent>;
const input = (scenario: Scenario) => ({
  messages: [{ role: 'user', content: scenario.prompt }],
});

/** Each way of tagging a run, and the fixture name's suffix for it. */
const TAGGINGS: Array<{
  suffix: string;
  run: (agent: Agent, scenario: Scenario) => Promise<unknown>;
}> = [
  {
    suffix: '',
    run: (agent, scenario) =>
      context.with(
        setAttributes(context.active(), { 'spanscore.test_case.id': scenario.testCaseId }),
        () => agent.invoke(input(scenario)),
      ),
  },
  {
    suffix: '-metadata',
    run: (agent, scenario) =>
      agent.invoke(input(scenario), { metadata: { testCaseId: scenario.testCaseId } }),
  },
];

for (const { suffix, run } of TAGGINGS) {
  for (const scenario of SCENARIOS) {
    const server = await scenarioServer(scenario);
    const llm = new ChatOpenAI({
      model: MODEL,
      apiKey: 'capture',
      configuration: { baseURL: server.baseURL },
    });
    await run(createReactAgent({ llm, tools }), scenario);
    await server.close();
  }
  await provider.forceFlush();
  writeFixture(
    `captured-langgraph-${versionOf('@langchain/langgraph')}-openinference-${versionOf('@arizeai/openinference-instrumentation-langchain')}${suffix}`,
    exporter.getFinishedSpans(),
  );
  exporter.reset();
}
await provider.shutdown();
