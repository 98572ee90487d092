/**
 * The OpenAI Agents SDK for JS, a chat over several user turns: each turn one `run()` (its own
 * trace) given the conversation so far (the previous run's `history` and the new user message),
 * through a `Runner` whose `groupId` names the conversation, as the SDK's docs link a chat's
 * traces; bridged to OpenTelemetry by OpenInference, with the conversation set the way
 * OpenInference documents it (`setSession` on the context), since the bridge does not record the
 * SDK's `groupId`. The test case id is an attribute on a parent span.
 */
import { setSession } from '@arizeai/openinference-core';
import { OpenAIAgentsInstrumentation } from '@arizeai/openinference-instrumentation-openai-agents';
import * as agents from '@openai/agents';
import { context, trace } from '@opentelemetry/api';
import { MODEL } from './scenarios.js';
import {
  SESSION_SCENARIOS,
  SESSION_TOOLS,
  runSessionTool,
  sessionServer,
} from './session-scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('openai-agents-support-agent');
trace.setGlobalTracerProvider(provider);
new OpenAIAgentsInstrumentation({ tracerProvider: provider }).manuallyInstrument(agents);
const tracer = provider.getTracer('app');

const agent = new agents.Agent({
  name: 'support-agent',
  instructions: 'You help customers with their orders.',
  model: MODEL,
  tools: Object.entries(SESSION_TOOLS).map(([name, t]) =>
    agents.tool({
      name,
      description: t.description,
      parameters: t.schema,
      execute: (input: unknown) => JSON.stringify(runSessionTool(name, input)),
    }),
  ),
});

for (const scenario of SESSION_SCENARIOS) {
  const server = await sessionServer(scenario);
  const runner = new agents.Runner({
    groupId: scenario.sessionId,
    modelProvider: new agents.OpenAIProvider({
      baseURL: server.baseURL,
      apiKey: 'capture',
      useResponses: false,
    }),
  });
  let history: agents.AgentInputItem[] = [];
  for (const turn of scenario.turns) {
    const input: agents.AgentInputItem[] = [...history, { role: 'user', content: turn.user }];
    await context.with(setSession(context.active(), { sessionId: scenario.sessionId }), () =>
      tracer.startActiveSpan(
        'support-turn',
        { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
        async span => {
          const result = await runner.run(agent, input, { maxTurns: 6 });
          history = result.history;
          span.end();
        },
      ),
    );
  }
  await server.close();
}
await agents.getGlobalTraceProvider().forceFlush();
await provider.forceFlush();
writeFixture(
  `captured-openai-agents-${versionOf('@openai/agents')}-sessions`,
  exporter.getFinishedSpans(),
);
await agents.getGlobalTraceProvider().shutdown();
