/**
 * The tool-approval scenario (`approval-scenarios.ts`) through the Vercel AI SDK 6
 * (`experimental_telemetry`) and 7 (`@ai-sdk/otel`), set up as `ai-sdk-health.ts` is, the tools
 * with `needsApproval: true`. As the SDK's guide has an app do it: the first `generateText` stops
 * at the model's calls with a `tool-approval-request` each; the app answers each with a
 * `tool-approval-response` (`approved`, and a `reason` for the denial) in a `tool` message and
 * calls `generateText` again with the conversation, which runs the approved call, answers the model
 * `{ type: 'execution-denied', reason }` for the denied one and takes the model's answer. Both
 * `generateText` calls run inside one span carrying the test case id: one trace. The AI SDK 7 also
 * runs the policy scenario: one `generateText` whose `toolApproval` denies `cancel_booking` in the
 * loop, with a reason, asking no one.
 */
import { trace } from '@opentelemetry/api';
import { createOpenAICompatible as createOpenAICompatible6 } from '@ai-sdk/openai-compatible-v2';
import { createOpenAICompatible as createOpenAICompatible7 } from '@ai-sdk/openai-compatible';
import { OpenTelemetry } from '@ai-sdk/otel';
import * as ai7 from 'ai';
import * as ai6 from 'ai6';
import {
  APPROVAL_SCENARIO,
  APPROVAL_TOOLS,
  DENIAL_REASON,
  POLICY_SCENARIO,
  approvalServer,
  runApprovalTool,
} from './approval-scenarios.js';
import { MODEL } from './scenarios.js';
import { recordingProvider, versionOf, writeFixture } from './write-fixture.js';

const { provider, exporter } = recordingProvider('ai-sdk-approval-agent');
trace.setGlobalTracerProvider(provider);
const tracer = provider.getTracer('ai');

const definitions = Object.entries(APPROVAL_TOOLS).map(([name, t]) => ({
  name,
  description: t.description,
  inputSchema: t.schema,
  needsApproval: true,
  execute: (args: unknown) => Promise.resolve(runApprovalTool(name, args)),
}));
const tools6 = Object.fromEntries(definitions.map(({ name, ...d }) => [name, ai6.tool(d)]));
const tools7 = Object.fromEntries(definitions.map(({ name, ...d }) => [name, ai7.tool(d)]));

/** The app's answer to each approval request: the scenario's decision, a reason for a denial. */
function answers(
  requests: ReadonlyArray<{ approvalId: string; toolCall: { toolCallId: string } }>,
): Array<{
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
}> {
  return requests.map(r => {
    const call = APPROVAL_SCENARIO.calls.find(c => c.id === r.toolCall.toolCallId);
    if (!call) throw new Error(`approval asked for an unscripted call ${r.toolCall.toolCallId}`);
    return call.approve
      ? { type: 'tool-approval-response', approvalId: r.approvalId, approved: true }
      : {
          type: 'tool-approval-response',
          approvalId: r.approvalId,
          approved: false,
          reason: DENIAL_REASON,
        };
  });
}

for (const major of [6, 7] as const) {
  exporter.reset();
  if (major === 7) ai7.registerTelemetry(new OpenTelemetry({ tracer }));
  const scenario = APPROVAL_SCENARIO;
  const server = await approvalServer(scenario);
  const options = { name: 'scripted', baseURL: server.baseURL, apiKey: 'capture' };
  await tracer.startActiveSpan(
    'approval-agent',
    { attributes: { 'spanscore.test_case.id': scenario.testCaseId } },
    async span => {
      if (major === 6) {
        const model = createOpenAICompatible6(options)(MODEL);
        const messages: ai6.ModelMessage[] = [{ role: 'user', content: scenario.prompt }];
        const settings = {
          model,
          tools: tools6,
          stopWhen: ai6.stepCountIs(6),
          experimental_telemetry: { isEnabled: true, tracer },
        };
        const first = await ai6.generateText({ ...settings, messages });
        const requests = first.content.filter(p => p.type === 'tool-approval-request');
        messages.push(...first.response.messages, { role: 'tool', content: answers(requests) });
        const second = await ai6.generateText({ ...settings, messages });
        if (second.text !== scenario.answer) throw new Error(`unexpected answer: ${second.text}`);
      } else {
        const model = createOpenAICompatible7(options)(MODEL);
        const messages: ai7.ModelMessage[] = [{ role: 'user', content: scenario.prompt }];
        const settings = { model, tools: tools7, stopWhen: ai7.stepCountIs(6) };
        const first = await ai7.generateText({ ...settings, messages });
        const requests = first.content.filter(p => p.type === 'tool-approval-request');
        messages.push(...first.response.messages, { role: 'tool', content: answers(requests) });
        const second = await ai7.generateText({ ...settings, messages });
        if (second.text !== scenario.answer) throw new Error(`unexpected answer: ${second.text}`);
      }
      span.end();
    },
  );
  // The model was told of the denial: the last request carries the denied call's result.
  const last = JSON.stringify(server.requests.at(-1)?.messages ?? []);
  if (server.requests.length !== 2 || !last.includes(DENIAL_REASON))
    throw new Error(`the model was not told of the denial: ${server.requests.length} requests`);
  await server.close();
  if (major === 7) {
    const policy = POLICY_SCENARIO;
    const policyServer = await approvalServer(policy);
    await tracer.startActiveSpan(
      'approval-agent',
      { attributes: { 'spanscore.test_case.id': policy.testCaseId } },
      async span => {
        const result = await ai7.generateText({
          model: createOpenAICompatible7({
            name: 'scripted',
            baseURL: policyServer.baseURL,
            apiKey: 'capture',
          })(MODEL),
          prompt: policy.prompt,
          tools: tools7,
          toolApproval: { cancel_booking: { type: 'denied', reason: DENIAL_REASON } },
          stopWhen: ai7.stepCountIs(6),
        });
        if (result.text !== policy.answer) throw new Error(`unexpected answer: ${result.text}`);
        span.end();
      },
    );
    const told = JSON.stringify(policyServer.requests.at(-1)?.messages ?? []);
    if (policyServer.requests.length !== 2 || !told.includes(DENIAL_REASON))
      throw new Error(`the model was not told of the policy's denial`);
    await policyServer.close();
  }
  await provider.forceFlush();
  writeFixture(
    `captured-ai-sdk-${versionOf(major === 6 ? 'ai6' : 'ai')}-approvals`,
    exporter.getFinishedSpans(),
  );
}
await provider.shutdown();
