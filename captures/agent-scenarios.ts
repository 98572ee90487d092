/**
 * The two multi-agent scenarios every multi-agent capture runs, each against its own scripted
 * OpenAI-compatible server: a triage agent hands a refund request off to a billing agent, which
 * looks the order up and issues the refund; and a question the triage agent answers itself with
 * its own tool. The model's turns, the handoff's tool name (each framework names its own: the
 * OpenAI Agents SDK and LangGraph's supervisor `transfer_to_<agent>`) and the tools' results are
 * fixed here, so each capture's golden expectations can be written from this file alone.
 */
import {
  startOpenAiCompatibleServer,
  textCompletion,
  toolCallCompletion,
  type OpenAiCompatibleServer,
} from '../test/helpers/openai-compatible-server.js';
import { MODEL } from './scenarios.js';

/** The tools of the team: the triage agent's, and the billing agent's. */
export const AGENT_TOOLS = {
  lookup_faq: {
    agent: 'triage',
    description: 'Look up an answer in the help centre',
    parameters: {
      type: 'object',
      properties: { topic: { type: 'string' } },
      required: ['topic'],
    },
    run: (args: { topic: string }) => ({ topic: args.topic, answer: 'We are open 9:00–17:00.' }),
  },
  lookup_order: {
    agent: 'billing',
    description: 'Look up an order by id',
    parameters: {
      type: 'object',
      properties: { orderId: { type: 'string' } },
      required: ['orderId'],
    },
    run: (args: { orderId: string }) => ({ orderId: args.orderId, charged: [20, 20] }),
  },
  issue_refund: {
    agent: 'billing',
    description: 'Refund an amount of an order',
    parameters: {
      type: 'object',
      properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
      required: ['orderId', 'amount'],
    },
    run: (args: { orderId: string; amount: number }) => ({ refundId: `R-${args.orderId}` }),
  },
} as const;

export type AgentToolName = keyof typeof AGENT_TOOLS;

/** Runs a team tool on parsed arguments. */
export function runAgentTool(name: string, args: unknown): unknown {
  const tool = AGENT_TOOLS[name as AgentToolName];
  if (!tool) throw new Error(`unknown tool ${name}`);
  return (tool.run as (a: unknown) => unknown)(args);
}

/** The names of the tools of one agent of the team. */
export function toolsOf(agent: 'triage' | 'billing'): AgentToolName[] {
  return (Object.keys(AGENT_TOOLS) as AgentToolName[]).filter(n => AGENT_TOOLS[n].agent === agent);
}

export interface AgentScenario {
  testCaseId: string;
  prompt: string;
  /** The model's turns, in order, whoever asks: tool calls (a handoff is one), then the answer. */
  turns: Array<Array<{ id: string; name: string; arguments: Record<string, unknown> }>>;
  answer: string;
}

/**
 * The scenarios, for a framework whose handoff tool to the billing agent is `handoffTool`, called
 * with `handoffArguments` (Mastra's sub-agent tools take the sub-agent's `prompt`).
 */
export function agentScenarios(
  handoffTool: string,
  handoffArguments: Record<string, unknown> = {},
): AgentScenario[] {
  return [
    {
      testCaseId: 'handoff-to-billing',
      prompt: 'I was charged twice for order 42. Please refund the extra charge.',
      turns: [
        [{ id: 'call_handoff', name: handoffTool, arguments: handoffArguments }],
        [{ id: 'call_lookup', name: 'lookup_order', arguments: { orderId: '42' } }],
        [{ id: 'call_refund', name: 'issue_refund', arguments: { orderId: '42', amount: 20 } }],
      ],
      answer: 'Refunded 20 for order 42 (R-42).',
    },
    {
      testCaseId: 'stays-with-triage',
      prompt: 'What are your opening hours?',
      turns: [[{ id: 'call_faq', name: 'lookup_faq', arguments: { topic: 'opening hours' } }]],
      answer: 'We are open 9:00–17:00.',
    },
  ];
}

/** A scripted server answering a scenario's turns in order, then its answer. */
export function agentScenarioServer(scenario: AgentScenario): Promise<OpenAiCompatibleServer> {
  return startOpenAiCompatibleServer([
    ...scenario.turns.map(calls => toolCallCompletion(MODEL, calls)),
    textCompletion(MODEL, scenario.answer),
  ]);
}
