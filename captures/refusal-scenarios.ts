/**
 * The refusal scenarios: the failures a framework refuses before running a tool, beside the ones
 * that only look like refusals, each against its own scripted OpenAI-compatible server whose
 * replies are fixed here, so each capture's golden expectations
 * (`test/fixtures/expected/captured-<framework>-<version>-refusals.tool-health.json`) are written
 * from this file alone:
 * - `invalid-json`: `convert_currency` with arguments that are not JSON (cut short), which the
 *   framework cannot parse and so does not run, then the corrected call;
 * - `tool-says-invalid-input`: `convert_currency` with a negative amount, which the schema accepts
 *   and the tool itself rejects, throwing `Invalid input: amount must be positive`: the tool ran,
 *   its failure is an error whatever its words;
 * - `output-rejected`: `lookup_booking` returns a booking without its `status`, which a framework
 *   that checks tool outputs against an output schema (Mastra) rejects after the tool ran: an
 *   error;
 * - `empty-error-field`: `send_notification`, which answers `{"error": ""}` (an empty error field,
 *   as some upstream APIs answer success): no failure.
 * The health scenarios (`health-scenarios.ts`) hold the other refusals: arguments the tool's
 * schema rejects, a tool the agent does not have.
 */
import { z } from 'zod';
import {
  startOpenAiCompatibleServer,
  textCompletion,
  toolCallCompletion,
  type OpenAiCompatibleServer,
  type ScriptedReply,
} from '../test/helpers/openai-compatible-server.js';
import { MODEL } from './scenarios.js';

/** The tools the refusal agents are given. */
export const REFUSAL_TOOLS = {
  send_notification: {
    description: 'Send the traveller a notification',
    schema: z.object({ text: z.string() }),
    output: undefined,
    // The notification service's answer passed on as it is: an empty error field, no error.
    run: () => ({ error: '' }),
  },
  convert_currency: {
    description: 'Convert an amount between two currencies',
    schema: z.object({ amount: z.number(), from: z.string(), to: z.string() }),
    output: undefined,
    run: (args: { amount: number; from: string; to: string }) => {
      if (args.amount < 0) throw new Error('Invalid input: amount must be positive');
      return { amount: Math.round(args.amount * 108) / 100, currency: args.to };
    },
  },
  lookup_booking: {
    description: 'Look a booking up by its id',
    schema: z.object({ bookingId: z.string() }),
    /** What a booking must hold: checked against the tool's output where the framework can. */
    output: z.object({ bookingId: z.string(), status: z.string() }),
    run: (args: { bookingId: string }) => ({ bookingId: args.bookingId }),
  },
} as const;

/** Runs a refusal tool on arguments its schema accepted; throws as the tool does. */
export function runRefusalTool(name: string, args: unknown): unknown {
  const tool = REFUSAL_TOOLS[name as keyof typeof REFUSAL_TOOLS];
  if (!tool) throw new Error(`unknown tool ${name}`);
  return (tool.run as (a: unknown) => unknown)(args);
}

export interface RefusalScenario {
  testCaseId: string;
  prompt: string;
  /**
   * The model's turns: each asks for these calls (`rawArguments`, when given, is sent as it is
   * instead of `arguments` as JSON); then the final answer.
   */
  turns: Array<
    Array<{ id: string; name: string; arguments: Record<string, unknown>; rawArguments?: string }>
  >;
  answer: string;
}

export const REFUSAL_SCENARIOS: RefusalScenario[] = [
  {
    testCaseId: 'invalid-json',
    prompt: 'Convert 100 EUR to USD.',
    turns: [
      [
        {
          id: 'call_convert_cut',
          name: 'convert_currency',
          arguments: {},
          rawArguments: '{"amount": 100, "from": "EUR", "to": ',
        },
      ],
      [
        {
          id: 'call_convert_good',
          name: 'convert_currency',
          arguments: { amount: 100, from: 'EUR', to: 'USD' },
        },
      ],
    ],
    answer: '100 EUR is 108 USD.',
  },
  {
    testCaseId: 'tool-says-invalid-input',
    prompt: 'Convert -5 EUR to USD.',
    turns: [
      [
        {
          id: 'call_convert_negative',
          name: 'convert_currency',
          arguments: { amount: -5, from: 'EUR', to: 'USD' },
        },
      ],
    ],
    answer: 'I cannot convert a negative amount.',
  },
  {
    testCaseId: 'output-rejected',
    prompt: 'Is booking B-7 confirmed?',
    turns: [[{ id: 'call_lookup', name: 'lookup_booking', arguments: { bookingId: 'B-7' } }]],
    answer: 'I could not read booking B-7.',
  },
  {
    testCaseId: 'empty-error-field',
    prompt: 'Tell me when my train leaves.',
    turns: [
      [{ id: 'call_notify', name: 'send_notification', arguments: { text: 'Train at 9:10' } }],
    ],
    answer: 'I sent you a notification.',
  },
];

/** A scripted server that answers a refusal scenario's turns in order, then its answer. */
export function refusalServer(scenario: RefusalScenario): Promise<OpenAiCompatibleServer> {
  return startOpenAiCompatibleServer([
    ...scenario.turns.map(calls => withRawArguments(toolCallCompletion(MODEL, calls), calls)),
    textCompletion(MODEL, scenario.answer),
  ]);
}

// The completion with each call's `rawArguments` sent as they are.
function withRawArguments(
  reply: { completion: Record<string, unknown> },
  calls: RefusalScenario['turns'][number],
): ScriptedReply {
  const choices = reply.completion.choices as Array<{
    message: { tool_calls: Array<{ function: { arguments: string } }> };
  }>;
  calls.forEach((c, i) => {
    if (c.rawArguments !== undefined)
      choices[0]!.message.tool_calls[i]!.function.arguments = c.rawArguments;
  });
  return reply;
}
