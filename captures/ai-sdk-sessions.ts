/**
 * The Vercel AI SDK 6, a chat over several user turns: each turn one `generateText` call (its own
 * trace) with the conversation so far as `messages`, and `experimental_telemetry.metadata` naming
 * the conversation (`sessionId`) and the test case (`testCaseId`), as the vendors' guides show:
 * `ai.telemetry.metadata.sessionId` and `…testCaseId` on every span of the call.
 */
import { trace } from '@opentelemetry/api';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible-v2';
import * as ai6 from 'ai6';
import { MODEL } from './scenarios.js';
import {
  SESSION_SCENARIOS,
  SESSION_TOOLS,
  runSessionTool,
  sessionServer,
} from './session-scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('ai-sdk-support-agent');
trace.setGlobalTracerProvider(provider);
const tracer = provider.getTracer('ai');

const tools = Object.fromEntries(
  Object.entries(SESSION_TOOLS).map(([name, t]) => [
    name,
    ai6.tool({
      description: t.description,
      inputSchema: t.schema,
      execute: (args: unknown) => Promise.resolve(runSessionTool(name, args)),
    }),
  ]),
);

for (const scenario of SESSION_SCENARIOS) {
  const server = await sessionServer(scenario);
  const model = createOpenAICompatible({
    name: 'scripted',
    baseURL: server.baseURL,
    apiKey: 'capture',
  })(MODEL);
  const messages: ai6.ModelMessage[] = [];
  for (const turn of scenario.turns) {
    messages.push({ role: 'user', content: turn.user });
    const result = await ai6.generateText({
      model,
      messages,
      tools,
      stopWhen: ai6.stepCountIs(5),
      experimental_telemetry: {
        isEnabled: true,
        tracer,
        metadata: { sessionId: scenario.sessionId, testCaseId: scenario.testCaseId },
      },
    });
    messages.push(...result.response.messages);
  }
  await server.close();
}
await provider.forceFlush();
writeFixture(`captured-ai-sdk-${versionOf('ai6')}-sessions`, exporter.getFinishedSpans());
await provider.shutdown();
