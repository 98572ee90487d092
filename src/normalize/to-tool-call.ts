import type { SpanDigest } from '../ingest/span-digest.js';
import { toolNames } from './canonical-tool-name.js';
import { cutName } from './input-bounds.js';
import type { ExtractedCall, ToolCall } from './tool-call.js';

/**
 * The {@link ToolCall} an extractor's call becomes: its names normalized (aliases applied to the
 * canonical one), its outcome read (`refused` when the framework did not run it), and where it
 * was seen. One literal for every call, executed or requested, so every ToolCall has one shape.
 * `start`: the tool span's start for an executed call, the requesting span's end for a request.
 */
export function toToolCall(
  c: ExtractedCall,
  span: SpanDigest,
  source: ToolCall['source'],
  convention: string,
  aliases: ReadonlyMap<string, string> | undefined,
  start: bigint,
): ToolCall {
  // Cut once here: every result, record and counter of the trace keeps its names.
  const rawName = cutName(c.rawName);
  const { stripped, folded } = toolNames(rawName);
  const status = c.refused ? 'error' : (c.status ?? 'ok');
  return {
    name: stripped,
    rawName,
    canonicalName: aliases?.get(folded) ?? folded,
    callId: c.callId,
    arguments: c.arguments,
    // Set later (`absorb`, `attributeAgents`) on most calls: a slot in the literal each, where
    // adding them made a second property store of about 40 bytes a call.
    requestedArguments: undefined,
    result: c.result,
    status,
    outcome: c.refused ? 'refused' : status,
    error: c.error,
    spanId: span.spanId,
    requestedBy: source === 'requested' ? span.spanId : undefined,
    startTimeUnixNano: start,
    durationMs:
      source === 'executed' && span.endTimeUnixNano >= span.startTimeUnixNano
        ? Number(span.endTimeUnixNano - span.startTimeUnixNano) / 1e6
        : undefined,
    source,
    convention,
    signal: c.signal,
    agent: undefined,
  };
}
