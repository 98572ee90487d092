/**
 * LangChain JS 1.x `createAgent` (LangGraph underneath) instrumented by OpenInference's LangChain
 * instrumentation, as its docs show it for ESM (`manuallyInstrument` on LangChain's callback
 * manager), twice: with `ChatOpenAI` against the scripted server, and with a scripted in-process
 * chat model (a `BaseChatModel` answering each scenario's turns as LangChain `AIMessage`s with
 * `tool_calls`, the way LangChain's own fake tool-calling test models do). The test case id is set
 * with OpenInference's `setAttributes` on the context, so every span of the run carries it.
 */
import { context } from '@opentelemetry/api';
import { setAttributes } from '@arizeai/openinference-core';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { ChatOpenAI } from '@langchain/openai';
import { createAgent, tool } from 'langchain';
import { MODEL, SCENARIOS, TOOLS, runTool, scenarioServer, type Scenario } from './scenarios.js';
import { toolSchema } from './tool-schemas.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('langchain-travel-agent');
const instrumentation = new LangChainInstrumentation();
instrumentation.setTracerProvider(provider);
instrumentation.manuallyInstrument(CallbackManagerModule);

const tools = Object.entries(TOOLS).map(([name, t]) =>
  tool(async (args: unknown) => Promise.resolve(JSON.stringify(runTool(name, args))), {
    name,
    description: t.description,
    schema: toolSchema(name),
  }),
);

/** Answers a scenario's turns in order, then its answer; tools bound are accepted and kept. */
class ScriptedChatModel extends BaseChatModel {
  private turn = 0;
  constructor(private readonly scenario: Scenario) {
    super({});
  }
  _llmType(): string {
    return 'scripted';
  }
  override bindTools(): this {
    return this;
  }
  _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const calls = this.scenario.turns[this.turn++];
    const message = calls
      ? new AIMessage({
          content: '',
          tool_calls: calls.map(c => ({
            id: c.id,
            name: c.name,
            args: c.arguments,
            type: 'tool_call',
          })),
        })
      : new AIMessage(this.scenario.answer);
    return Promise.resolve({ generations: [{ text: calls ? '' : this.scenario.answer, message }] });
  }
}

for (const kind of ['chat-openai', 'scripted-model'] as const) {
  exporter.reset();
  for (const scenario of SCENARIOS) {
    const server = await scenarioServer(scenario);
    const model =
      kind === 'chat-openai'
        ? new ChatOpenAI({
            model: MODEL,
            apiKey: 'capture',
            configuration: { baseURL: server.baseURL },
          })
        : new ScriptedChatModel(scenario);
    const agent = createAgent({ model, tools });
    await context.with(
      setAttributes(context.active(), { 'spanscore.test_case.id': scenario.testCaseId }),
      () => agent.invoke({ messages: [{ role: 'user', content: scenario.prompt }] }),
    );
    await server.close();
  }
  await provider.forceFlush();
  writeFixture(
    `captured-langchain-openinference${kind === 'scripted-model' ? '-scripted-model' : ''}-${versionOf('langchain')}`,
    exporter.getFinishedSpans(),
  );
}
await provider.shutdown();
