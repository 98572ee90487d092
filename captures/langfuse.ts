/**
 * Langfuse's JS SDK (`@langfuse/tracing` + `@langfuse/otel`) as its docs show it: tools wrapped
 * with `observe(fn, { asType: 'tool' })`, the agent loop in `startActiveObservation` (an `agent`
 * observation, a `generation` per model call recording the messages in and the assistant message
 * out), the real `openai` client against the scripted server, and `LangfuseSpanProcessor` with an
 * in-memory exporter in place of Langfuse's own. The test case id goes in through
 * `propagateAttributes` as trace metadata (`testCaseId`) and as the session id.
 */
import { LangfuseSpanProcessor } from '@langfuse/otel';
import {
  observe,
  propagateAttributes,
  setLangfuseTracerProvider,
  startActiveObservation,
} from '@langfuse/tracing';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import {
  MODEL,
  OPENAI_TOOLS,
  SCENARIOS,
  TOOLS,
  runTool,
  scenarioServer,
  type ToolName,
} from './scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider(
  'langfuse-travel-agent',
  exporter => new LangfuseSpanProcessor({ exporter, exportMode: 'immediate' }),
);
setLangfuseTracerProvider(provider);

// One observed function per tool, named after it, as a Langfuse user writes them.
const tools = Object.fromEntries(
  Object.keys(TOOLS).map(name => [
    name,
    observe(async (args: unknown) => Promise.resolve(runTool(name, args)), {
      name,
      asType: 'tool',
    }),
  ]),
) as Record<ToolName, (args: unknown) => Promise<unknown>>;

for (const scenario of SCENARIOS) {
  const server = await scenarioServer(scenario);
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'capture' });
  await propagateAttributes(
    { sessionId: scenario.testCaseId, metadata: { testCaseId: scenario.testCaseId } },
    () =>
      startActiveObservation(
        'travel-agent',
        async agent => {
          agent.update({ input: scenario.prompt });
          const messages: ChatCompletionMessageParam[] = [
            { role: 'user', content: scenario.prompt },
          ];
          for (;;) {
            const completion = await startActiveObservation(
              `chat ${MODEL}`,
              async generation => {
                generation.update({ input: messages, model: MODEL });
                const reply = await client.chat.completions.create({
                  model: MODEL,
                  messages,
                  tools: OPENAI_TOOLS,
                });
                generation.update({
                  output: reply.choices[0]!.message,
                  usageDetails: {
                    input: reply.usage?.prompt_tokens ?? 0,
                    output: reply.usage?.completion_tokens ?? 0,
                  },
                });
                return reply;
              },
              { asType: 'generation' },
            );
            const message = completion.choices[0]!.message;
            messages.push(message);
            if (!message.tool_calls?.length) {
              agent.update({ output: message.content });
              break;
            }
            for (const call of message.tool_calls) {
              if (call.type !== 'function') continue;
              const result = await tools[call.function.name as ToolName](
                JSON.parse(call.function.arguments),
              );
              messages.push({
                role: 'tool',
                tool_call_id: call.id,
                content: JSON.stringify(result),
              });
            }
          }
        },
        { asType: 'agent' },
      ),
  );
  await server.close();
}
await provider.forceFlush();
writeFixture(`captured-langfuse-${versionOf('@langfuse/tracing')}`, exporter.getFinishedSpans());
await provider.shutdown();
