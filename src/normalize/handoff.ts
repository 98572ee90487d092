import type { ToolCall } from './tool-call.js';

/** Control passed from one agent to another (`transfer_to_billing`, `handoff to billing`). */
export interface Handoff {
  /** The agent that handed off: the one that made the call, `undefined` when none is known. */
  from: string | undefined;
  to: string;
  /** The handoff tool's call id, when recorded. */
  callId: string | undefined;
  /** The handoff tool's name, as the trace spelled it. */
  rawName: string;
  spanId: string;
  startTimeUnixNano: bigint;
  /** `executed` when a span ran the handoff, `requested` when only the model's request shows it. */
  source: ToolCall['source'];
}
