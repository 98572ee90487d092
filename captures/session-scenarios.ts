/**
 * The conversation scenarios (spanscore's sessions): a support agent over several user turns, each
 * turn its own run (one trace), the turns of one conversation sharing a session id. One scripted
 * OpenAI-compatible server per conversation answers every model call of every turn in order, so
 * each capture's golden expectations (`test/fixtures/expected/…-sessions.sessions.json`) are
 * written from this file alone:
 * - `verify-then-refund`: the order looked up in turn 1; identity verified, then the refund, in
 *   turn 2;
 * - `refund-before-verify`: the order looked up and refunded in turn 1, identity verified in turn 2
 *   (its own test case id, expecting what `verify-then-refund` expects: the suite fails it);
 * - `repeated-lookup`: the same order looked up in each of three turns;
 * - `one-turn`: lookup, verification and refund in one turn.
 */
import { z } from 'zod';
import {
  startOpenAiCompatibleServer,
  textCompletion,
  toolCallCompletion,
  type OpenAiCompatibleServer,
} from '../test/helpers/openai-compatible-server.js';
import { MODEL } from './scenarios.js';

/** The support agent's tools. */
export const SESSION_TOOLS = {
  lookup_order: {
    description: 'Look an order up by id',
    schema: z.object({ orderId: z.string() }),
    run: (args: { orderId: string }) => ({
      orderId: args.orderId,
      status: 'delivered',
      totalEur: 40,
    }),
  },
  verify_identity: {
    description: "Verify the customer's identity with their date of birth",
    schema: z.object({ dateOfBirth: z.string() }),
    run: (args: { dateOfBirth: string }) => ({ verified: args.dateOfBirth === '1990-01-01' }),
  },
  issue_refund: {
    description: 'Refund an order',
    schema: z.object({ orderId: z.string(), amountEur: z.number() }),
    run: (args: { orderId: string; amountEur: number }) => ({
      refundId: `R-${args.orderId}`,
      amountEur: args.amountEur,
    }),
  },
} as const;

export type SessionToolName = keyof typeof SESSION_TOOLS;

/** Runs a tool of {@link SESSION_TOOLS} on parsed arguments. */
export function runSessionTool(name: string, args: unknown): unknown {
  const tool = SESSION_TOOLS[name as SessionToolName];
  if (!tool) throw new Error(`unknown tool ${name}`);
  return (tool.run as (a: unknown) => unknown)(args);
}

type Call = { id: string; name: SessionToolName; arguments: Record<string, string | number> };

/** One user turn: the message, the model's tool-call steps, then its answer. */
export interface SessionTurn {
  user: string;
  steps: Call[][];
  answer: string;
}

export interface SessionScenario {
  /** The conversation's id, as the app passes it to its framework. */
  sessionId: string;
  /** The session test case the turns are tagged with. */
  testCaseId: string;
  turns: SessionTurn[];
}

const lookup = (id: string): Call => ({ id, name: 'lookup_order', arguments: { orderId: 'A1' } });
const verify = (id: string): Call => ({
  id,
  name: 'verify_identity',
  arguments: { dateOfBirth: '1990-01-01' },
});
const refund = (id: string): Call => ({
  id,
  name: 'issue_refund',
  arguments: { orderId: 'A1', amountEur: 40 },
});

export const SESSION_SCENARIOS: SessionScenario[] = [
  {
    sessionId: 'conv-verify-then-refund',
    testCaseId: 'verify-then-refund',
    turns: [
      {
        user: 'I want a refund for order A1.',
        steps: [[lookup('call_lookup_1')]],
        answer: 'Order A1 was delivered. Please confirm your date of birth.',
      },
      {
        user: 'It is 1990-01-01.',
        steps: [[verify('call_verify_1')], [refund('call_refund_1')]],
        answer: 'Thank you: 40 EUR refunded for A1.',
      },
    ],
  },
  {
    sessionId: 'conv-refund-before-verify',
    testCaseId: 'refund-before-verify',
    turns: [
      {
        user: 'Refund order A1 please.',
        steps: [[lookup('call_lookup_2')], [refund('call_refund_2')]],
        answer: 'Refunded 40 EUR. Please confirm your date of birth for our records.',
      },
      {
        user: 'It is 1990-01-01.',
        steps: [[verify('call_verify_2')]],
        answer: 'Thank you, verified.',
      },
    ],
  },
  {
    sessionId: 'conv-repeated-lookup',
    testCaseId: 'no-repeated-lookups',
    turns: ['Where is order A1?', 'Are you sure about A1?', 'Please check A1 again.'].map(
      (user, i) => ({
        user,
        steps: [[lookup(`call_lookup_r${i + 1}`)]],
        answer: 'Order A1 was delivered.',
      }),
    ),
  },
  {
    sessionId: 'conv-one-turn',
    testCaseId: 'one-turn',
    turns: [
      {
        user: 'Refund order A1; my date of birth is 1990-01-01.',
        steps: [[lookup('call_lookup_3')], [verify('call_verify_3')], [refund('call_refund_3')]],
        answer: 'Verified, and 40 EUR refunded for A1.',
      },
    ],
  },
];

/** A scripted server answering every model call of the conversation, turn by turn, in order. */
export function sessionServer(scenario: SessionScenario): Promise<OpenAiCompatibleServer> {
  return startOpenAiCompatibleServer(
    scenario.turns.flatMap(turn => [
      ...turn.steps.map(calls => toolCallCompletion(MODEL, calls)),
      textCompletion(MODEL, turn.answer),
    ]),
  );
}
