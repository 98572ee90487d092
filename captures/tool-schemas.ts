import { z } from 'zod';
import type { AgentToolName } from './agent-scenarios.js';
import type { ToolName } from './scenarios.js';

/**
 * The parameters of `scenarios.ts`' tools as zod schemas, for the frameworks of this workspace
 * that define tools with zod (its pinned `zod`). Genkit (its own `z`) and the captures in folders
 * of their own (their own `zod`) define theirs beside them.
 */
export const TOOL_SCHEMAS = {
  get_weather: z.object({ city: z.string() }),
  search_flights: z.object({ from: z.string(), to: z.string(), date: z.string() }),
  book_flight: z.object({ flightId: z.string() }),
} satisfies Record<ToolName, z.ZodObject>;

/** The schema of a tool of `TOOLS`, by the name `Object.entries(TOOLS)` gives it. */
export function toolSchema(name: string): (typeof TOOL_SCHEMAS)[ToolName] {
  return TOOL_SCHEMAS[name as ToolName];
}

/** The parameters of `agent-scenarios.ts`' team tools, as zod schemas (see {@link TOOL_SCHEMAS}). */
export const AGENT_TOOL_SCHEMAS = {
  lookup_faq: z.object({ topic: z.string() }),
  lookup_order: z.object({ orderId: z.string() }),
  issue_refund: z.object({ orderId: z.string(), amount: z.number() }),
} satisfies Record<AgentToolName, z.ZodObject>;
