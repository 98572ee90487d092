import { MockLanguageModelV2 } from 'ai/test';

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

/**
 * The Vercel AI SDK's mock model scripted as a weather agent: the first step asks for
 * `weather({ city: "Paris" })` with call id `callId`, every later step answers "Sunny in Paris.".
 */
export function weatherMockModel(callId: string): MockLanguageModelV2 {
  let step = 0;
  return new MockLanguageModelV2({
    doGenerate: () =>
      Promise.resolve(
        step++ === 0
          ? {
              content: [
                {
                  type: 'tool-call' as const,
                  toolCallId: callId,
                  toolName: 'weather',
                  input: '{"city":"Paris"}',
                },
              ],
              finishReason: 'tool-calls' as const,
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text' as const, text: 'Sunny in Paris.' }],
              finishReason: 'stop' as const,
              usage,
              warnings: [],
            },
      ),
  });
}
