/**
 * The plain agent loop of the captures whose instrumentation wraps only the `openai` client (the
 * OpenTelemetry GenAI instrumentations, OpenLIT): ask the model with the tools, run each requested
 * tool in the app itself (no span: these instrumentations record none), feed the results back as
 * `role: tool` messages, until the model answers.
 */
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { MODEL, OPENAI_TOOLS, runTool, type Scenario } from './scenarios.js';

/** Runs `scenario`'s prompt to the model's answer with `client`; returns the number of tool calls. */
export async function runOpenAiChatLoop(client: OpenAI, scenario: Scenario): Promise<number> {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: scenario.prompt }];
  let calls = 0;
  for (;;) {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages,
      tools: OPENAI_TOOLS,
    });
    const message = completion.choices[0]!.message;
    messages.push(message);
    if (!message.tool_calls?.length) return calls;
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      calls++;
      const result = runTool(call.function.name, JSON.parse(call.function.arguments));
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
}
