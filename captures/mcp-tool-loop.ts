/**
 * The agent loop of the MCP captures (`mcp.ts`, `mcp-openinference.ts`, `mcp-openinference-health.ts`): the MCP server's tools as
 * OpenAI functions, and the loop that asks the model, calls each requested tool on the server with
 * `tools/call`, and feeds the text of its result back, until the model answers.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { MODEL } from './scenarios.js';

/** The server's tools (`tools/list`) as the `tools` of a chat completion request. */
export async function toolsAsFunctions(
  client: Client,
): Promise<OpenAI.ChatCompletionFunctionTool[]> {
  const { tools } = await client.listTools();
  return tools.map(t => ({
    type: 'function' as const,
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
}

/**
 * Runs the model and the server's tools on `prompt` until the model answers; returns the calls
 * made. With `feedErrors`, a call the client rejects (a JSON-RPC error: a tool the server does not
 * have) is handed back to the model as `{"error": …}`, as the health captures' agents do.
 */
export async function runMcpToolLoop(
  openai: OpenAI,
  client: Client,
  functions: OpenAI.ChatCompletionFunctionTool[],
  prompt: string,
  options: { feedErrors?: boolean } = {},
): Promise<number> {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }];
  let calls = 0;
  for (;;) {
    const completion = await openai.chat.completions.create({
      model: MODEL,
      messages,
      tools: functions,
    });
    const message = completion.choices[0]!.message;
    messages.push(message);
    if (!message.tool_calls?.length) return calls;
    for (const call of message.tool_calls) {
      if (call.type !== 'function') continue;
      let text: string;
      try {
        const result = await client.callTool({
          name: call.function.name,
          arguments: JSON.parse(call.function.arguments) as Record<string, unknown>,
        });
        text = (result.content as Array<{ type: string; text?: string }>)
          .map(c => c.text ?? '')
          .join('');
      } catch (error) {
        if (!options.feedErrors) throw error;
        text = JSON.stringify({ error: (error as Error).message });
      }
      calls++;
      messages.push({ role: 'tool', tool_call_id: call.id, content: text });
    }
  }
}
