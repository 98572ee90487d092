/**
 * The tool-approval scenario: a tool the app must approve before it runs (the AI SDK's
 * `needsApproval`), one call approved and run, one denied with a reason, the model then answering.
 * Against its own scripted OpenAI-compatible server whose replies are fixed here, so each capture's
 * golden expectations (`test/fixtures/expected/captured-<framework>-<version>-approvals.tool-health.json`)
 * are written from this file alone:
 * - `approval`: asked for the weather in Paris and to cancel booking B-42, the model asks for both
 *   calls in one turn; the app approves `get_weather` (it runs) and denies `cancel_booking` with
 *   {@link DENIAL_REASON} (it never runs); the model then answers {@link APPROVAL_SCENARIO}'s
 *   `answer`;
 * - `policy-denial` (the AI SDK 7 only, whose `toolApproval` option decides in the loop): the model
 *   asks for `cancel_booking` (B-43), which the app's policy denies with {@link DENIAL_REASON}
 *   without asking anyone; the model then answers {@link POLICY_SCENARIO}'s `answer`.
 */
import { z } from 'zod';
import {
  startOpenAiCompatibleServer,
  textCompletion,
  toolCallCompletion,
  type OpenAiCompatibleServer,
} from '../test/helpers/openai-compatible-server.js';
import { MODEL } from './scenarios.js';

/** The tools of the approval agent: both need the app's approval before they run. */
export const APPROVAL_TOOLS = {
  get_weather: {
    description: 'Current weather for a city',
    schema: z.object({ city: z.string() }),
    run: (args: { city: string }) => ({ city: args.city, temperatureC: 18, condition: 'sunny' }),
  },
  cancel_booking: {
    description: 'Cancel a booking by its id',
    schema: z.object({ bookingId: z.string() }),
    run: (args: { bookingId: string }): never => {
      // Denied in the scenario: reaching here would mean a denied call ran.
      throw new Error(`cancel_booking ran for ${args.bookingId} although it was denied`);
    },
  },
} as const;

/** Runs an approval tool on arguments its schema accepted. */
export function runApprovalTool(name: string, args: unknown): unknown {
  const tool = APPROVAL_TOOLS[name as keyof typeof APPROVAL_TOOLS];
  if (!tool) throw new Error(`unknown tool ${name}`);
  return (tool.run as (a: unknown) => unknown)(args);
}

/** The reason the app gives when it denies `cancel_booking`. */
export const DENIAL_REASON = 'Cancellations need a human agent';

export interface ApprovalScenario {
  testCaseId: string;
  prompt: string;
  /** The model's one tool turn: these calls, each with whether the app approves it. */
  calls: Array<{ id: string; name: string; arguments: Record<string, unknown>; approve: boolean }>;
  answer: string;
}

export const APPROVAL_SCENARIO: ApprovalScenario = {
  testCaseId: 'approval',
  prompt: 'What is the weather in Paris? And cancel my booking B-42.',
  calls: [
    { id: 'call_weather', name: 'get_weather', arguments: { city: 'Paris' }, approve: true },
    {
      id: 'call_cancel',
      name: 'cancel_booking',
      arguments: { bookingId: 'B-42' },
      approve: false,
    },
  ],
  answer: 'It is sunny and 18 °C in Paris. I could not cancel booking B-42: a human agent must.',
};

export const POLICY_SCENARIO: ApprovalScenario = {
  testCaseId: 'policy-denial',
  prompt: 'Cancel my booking B-43.',
  calls: [
    {
      id: 'call_cancel_policy',
      name: 'cancel_booking',
      arguments: { bookingId: 'B-43' },
      approve: false,
    },
  ],
  answer: 'I could not cancel booking B-43: a human agent must.',
};

/** A scripted server that asks for the scenario's calls, then answers. */
export function approvalServer(scenario: ApprovalScenario): Promise<OpenAiCompatibleServer> {
  return startOpenAiCompatibleServer([
    toolCallCompletion(
      MODEL,
      scenario.calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })),
    ),
    textCompletion(MODEL, scenario.answer),
  ]);
}
