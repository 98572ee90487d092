/**
 * The tool-health scenarios (`health-scenarios.ts`) through LangGraph's prebuilt ReAct agent
 * (`createReactAgent` with `ChatOpenAI` against the scripted server), traced by OpenInference's
 * LangChain instrumentation, set up as `langgraph-openinference.ts` is. Its `ToolNode` answers the
 * model a `ToolMessage` with `status: "error"` for a call whose input fails the tool's schema
 * (LangChain's `ToolInputParsingException`, before the tool runs), for a tool the agent does not
 * have, and for a tool that throws.
 */
import { context } from '@opentelemetry/api';
import { setAttributes } from '@arizeai/openinference-core';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { HEALTH_SCENARIOS, HEALTH_TOOLS, healthServer, runHealthTool } from './health-scenarios.js';
import { MODEL } from './scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('langgraph-health-agent');
const instrumentation = new LangChainInstrumentation();
instrumentation.setTracerProvider(provider);
instrumentation.manuallyInstrument(CallbackManagerModule);

const tools = Object.entries(HEALTH_TOOLS).map(([name, t]) =>
  tool(async (args: unknown) => Promise.resolve(JSON.stringify(runHealthTool(name, args))), {
    name,
    description: t.description,
    schema: t.schema,
  }),
);

for (const scenario of HEALTH_SCENARIOS) {
  const server = await healthServer(scenario);
  const llm = new ChatOpenAI({
    model: MODEL,
    apiKey: 'capture',
    configuration: { baseURL: server.baseURL },
  });
  try {
    await context.with(
      setAttributes(context.active(), { 'spanscore.test_case.id': scenario.testCaseId }),
      () =>
        createReactAgent({ llm, tools }).invoke({
          messages: [{ role: 'user', content: scenario.prompt }],
        }),
    );
  } catch (error) {
    console.log(`langgraph: ${scenario.testCaseId}: the run failed: ${(error as Error).message}`);
  }
  await server.close();
}
await provider.forceFlush();
writeFixture(
  `captured-langgraph-${versionOf('@langchain/langgraph')}-openinference-${versionOf('@arizeai/openinference-instrumentation-langchain')}-health`,
  exporter.getFinishedSpans(),
);
await provider.shutdown();
