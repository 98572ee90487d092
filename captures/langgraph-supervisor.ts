/**
 * LangGraph JS's supervisor (`@langchain/langgraph-supervisor`) as its docs show it: a `triage`
 * supervisor with a tool of its own and a `billing` worker made with `createReactAgent`, each on
 * `ChatOpenAI` against the scripted server; the supervisor hands off with its
 * `transfer_to_billing` tool, and the worker returns control with `transfer_back_to_triage`.
 * Traced by OpenInference's LangChain instrumentation; the test case id set with OpenInference's
 * `setAttributes`, so every span of the run carries it. The two scenarios of `agent-scenarios.ts`.
 */
import { context } from '@opentelemetry/api';
import { setAttributes } from '@arizeai/openinference-core';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { createSupervisor } from '@langchain/langgraph-supervisor';
import { ChatOpenAI } from '@langchain/openai';
import {
  AGENT_TOOLS,
  agentScenarioServer,
  agentScenarios,
  runAgentTool,
  toolsOf,
} from './agent-scenarios.js';
import { AGENT_TOOL_SCHEMAS } from './tool-schemas.js';
import { MODEL } from './scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('langgraph-support-team');
const instrumentation = new LangChainInstrumentation();
instrumentation.setTracerProvider(provider);
instrumentation.manuallyInstrument(CallbackManagerModule);

const toolsFor = (agent: 'triage' | 'billing') =>
  toolsOf(agent).map(name =>
    tool(async (args: unknown) => Promise.resolve(JSON.stringify(runAgentTool(name, args))), {
      name,
      description: AGENT_TOOLS[name].description,
      schema: AGENT_TOOL_SCHEMAS[name],
    }),
  );

for (const scenario of agentScenarios('transfer_to_billing')) {
  const server = await agentScenarioServer(scenario);
  const llm = new ChatOpenAI({
    model: MODEL,
    apiKey: 'capture',
    configuration: { baseURL: server.baseURL },
  });
  const billing = createReactAgent({
    llm,
    tools: toolsFor('billing'),
    name: 'billing',
    prompt: 'You handle charges and refunds.',
  });
  const team = createSupervisor({
    agents: [billing],
    llm,
    tools: toolsFor('triage'),
    supervisorName: 'triage',
    prompt: 'You answer general questions and hand billing questions to billing.',
  }).compile();
  await context.with(
    setAttributes(context.active(), { 'spanscore.test_case.id': scenario.testCaseId }),
    () => team.invoke({ messages: [{ role: 'user', content: scenario.prompt }] }),
  );
  await server.close();
}
await provider.forceFlush();
writeFixture(
  `captured-langgraph-supervisor-${versionOf('@langchain/langgraph-supervisor')}-openinference-${versionOf('@arizeai/openinference-instrumentation-langchain')}`,
  exporter.getFinishedSpans(),
);
await provider.shutdown();
