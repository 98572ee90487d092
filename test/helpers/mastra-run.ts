import {
  createAgentTestRun,
  createTestMessage,
  createToolInvocation,
} from '@mastra/evals/scorers/utils';

/**
 * A Mastra agent run (`@mastra/evals` 1.x message format) in which the assistant called `tools`
 * in order, each completed (`state: 'result'`), for comparing our scorers with Mastra's.
 */
export function mastraRun(tools: readonly string[]): ReturnType<typeof createAgentTestRun> {
  return createAgentTestRun({
    inputMessages: [createTestMessage({ content: 'do the task', role: 'user', id: 'in' })],
    output: [
      createTestMessage({
        content: 'done',
        role: 'assistant',
        id: 'out',
        toolInvocations: tools.map((toolName, i) =>
          createToolInvocation({
            toolCallId: `c${i}`,
            toolName,
            args: { q: 'x' },
            result: {},
            state: 'result',
          }),
        ),
      }),
    ],
  });
}
