/**
 * The Anthropic SDK (`@anthropic-ai/sdk`) in a hand-written tool loop, traced by OpenInference's
 * Anthropic instrumentation (`manuallyInstrument`, as its README shows for ESM). Nothing wraps the
 * tools: the calls exist only as `tool_use` blocks in the LLM spans' output and the results as
 * `tool_result` blocks in the next call's input. The model is `scripted-anthropic-server.ts`. The
 * test case id is an attribute of the run's root span, as spanscore documents for any framework.
 */
import Anthropic from '@anthropic-ai/sdk';
import { AnthropicInstrumentation } from '@arizeai/openinference-instrumentation-anthropic';
import { SCENARIOS, TOOLS, runTool } from './scenarios.js';
import { scriptedAnthropicServer } from './scripted-anthropic-server.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const MODEL = 'claude-capture';
const { provider, exporter } = recordingProvider('anthropic-travel-agent');
const instrumentation = new AnthropicInstrumentation({ tracerProvider: provider });
instrumentation.manuallyInstrument(Anthropic);
const tracer = provider.getTracer('app');

const tools: Anthropic.Tool[] = Object.entries(TOOLS).map(([name, t]) => ({
  name,
  description: t.description,
  input_schema: t.parameters as unknown as Anthropic.Tool.InputSchema,
}));

for (const scenario of SCENARIOS) {
  const server = await scriptedAnthropicServer(scenario, MODEL);
  const client = new Anthropic({ baseURL: server.baseURL, apiKey: 'capture', maxRetries: 0 });
  await tracer.startActiveSpan(
    'travel-run',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: scenario.prompt }];
      for (;;) {
        const reply = await client.messages.create({
          model: MODEL,
          max_tokens: 512,
          messages,
          tools,
        });
        messages.push({ role: 'assistant', content: reply.content });
        const uses = reply.content.filter(b => b.type === 'tool_use');
        if (uses.length === 0) break;
        messages.push({
          role: 'user',
          content: uses.map(u => ({
            type: 'tool_result' as const,
            tool_use_id: u.id,
            content: JSON.stringify(runTool(u.name, u.input)),
          })),
        });
      }
      span.end();
    },
  );
  await server.close();
}
await provider.forceFlush();
writeFixture(
  `captured-anthropic-${versionOf('@anthropic-ai/sdk')}-openinference-${versionOf('@arizeai/openinference-instrumentation-anthropic')}`,
  exporter.getFinishedSpans(),
);
await provider.shutdown();
