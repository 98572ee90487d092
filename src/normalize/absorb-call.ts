import type { ToolCall } from './tool-call.js';
import { hasOwnKey } from './has-own-key.js';

/**
 * What {@link absorb} reads of the report it merges in: a ToolCall, or a model's request not made
 * one (`RequestedCall`).
 */
export type AbsorbedCall = Pick<
  ToolCall,
  'callId' | 'source' | 'arguments' | 'result' | 'requestedBy' | 'durationMs' | 'outcome' | 'error'
>;

/**
 * Merges a second report of one call into the call kept (`into`): what `into` lacks is taken
 * from `from`, the model's arguments are kept beside a run's own, and a failure `from` records
 * fails `into` unless it failed already.
 */
export function absorb(into: ToolCall, from: AbsorbedCall): void {
  into.callId ??= from.callId;
  if (from.source === 'requested' && into.source === 'executed' && from.arguments !== undefined)
    into.requestedArguments ??= from.arguments;
  // A bare value (LangChain records a one-argument tool's input as `Paris`) or an empty one
  // (a wrapper that saw no arguments: `{"args":[],"kwargs":{}}`) gives way to the structured
  // arguments the model sent (`{"city":"Paris"}`).
  if (into.arguments === undefined || (!hasEntries(into.arguments) && hasEntries(from.arguments)))
    into.arguments = from.arguments;
  if (into.result === undefined) into.result = from.result;
  into.requestedBy ??= from.requestedBy;
  into.durationMs ??= from.durationMs;
  if (from.outcome !== 'ok' && into.outcome === 'ok') {
    into.status = 'error';
    into.outcome = from.outcome;
    into.error = from.error;
  }
}

/** An object or array with at least one entry: arguments worth keeping over the request's. */
function hasEntries(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // An own enumerable key, as Object.keys would list, without making the list.
  for (const key in value) if (hasOwnKey(value, key)) return true;
  return false;
}
