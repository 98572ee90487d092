/**
 * LlamaIndex TS (`llamaindex`, with `@llamaindex/openai`'s `OpenAIAgent` and `OpenAI` LLM against
 * the scripted server), traced by Traceloop's LlamaIndex instrumentation
 * (`@traceloop/instrumentation-llamaindex`, `manuallyInstrument` on both modules, as ESM needs).
 * The instrumentation records the agent's `chat` and each LLM `chat` span, but no tool call, tool
 * definition or tool result by name: the capture behind spanscore's `no_tool_calls_recorded`
 * diagnostic. The test case id is an attribute of the run's root span, as spanscore documents for
 * any framework.
 */
import { tool } from '@llamaindex/core/tools';
import * as llamaindexOpenAI from '@llamaindex/openai';
import { LlamaIndexInstrumentation } from '@traceloop/instrumentation-llamaindex';
import * as llamaindex from 'llamaindex';
import { MODEL, SCENARIOS, TOOLS, runTool, scenarioServer } from './scenarios.js';
import { toolSchema } from './tool-schemas.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('llamaindex-travel-agent');
const instrumentation = new LlamaIndexInstrumentation({ traceContent: true });
instrumentation.setTracerProvider(provider);
// The types name the CommonJS build; this script imports the ESM one, which is what is patched.
instrumentation.manuallyInstrument(llamaindex as never, llamaindexOpenAI);
const tracer = provider.getTracer('app');

const tools = Object.entries(TOOLS).map(([name, t]) =>
  tool({
    name,
    description: t.description,
    parameters: toolSchema(name),
    execute: (args: unknown) => JSON.stringify(runTool(name, args)),
  }),
);

for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const llm = new llamaindexOpenAI.OpenAI({
    model: MODEL,
    apiKey: 'capture',
    baseURL: server.baseURL,
  });
  const agent = new llamaindexOpenAI.OpenAIAgent({ llm, tools });
  await tracer.startActiveSpan(
    'travel-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      const response = await agent.chat({ message: scenario.prompt });
      if (!String(response.message.content).includes(scenario.answer.slice(0, 10)))
        throw new Error(`${scenario.testCaseId}: ${String(response.message.content)}`);
      span.end();
    },
  );
  await server.close();
}
await provider.forceFlush();
writeFixture(
  `captured-llamaindex-${versionOf('llamaindex')}-traceloop-${versionOf('@traceloop/instrumentation-llamaindex')}`,
  exporter.getFinishedSpans(),
);
await provider.shutdown();
