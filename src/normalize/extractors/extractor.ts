import { GEN_AI_TOOL_ATTRIBUTES } from '../../semconv/attributes.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import type { ExtractedCall } from '../tool-call.js';

/** A tool result seen in messages, joined to its call by id. */
export interface ToolResultSeen {
  callId: string;
  result: unknown;
  isError: boolean;
}

/**
 * Reads tool calls in one span convention. The registry (`index.ts`) asks each extractor in order;
 * the first whose `executed` returns an array claims the span as that convention's tool span.
 * Every extractor's `requested` runs on every span, and duplicates are merged afterwards.
 */
export interface ToolCallExtractor {
  /** Stable id, recorded on each call as `convention`. */
  readonly id: string;
  /** The call(s) this span executed, or `undefined` when it is not this convention's tool span. */
  executed?(span: SpanDigest): ExtractedCall[] | undefined;
  /** Calls a model requested on this span, and results fed back to it. */
  requested?(span: SpanDigest): { calls: ExtractedCall[]; results: ToolResultSeen[] } | undefined;
}

/** `status: 'error'` and the message when the span's status is ERROR, or `error.type` is set. */
export function spanOutcome(span: SpanDigest): Pick<ExtractedCall, 'status' | 'error'> {
  const errorType = span.attributes[GEN_AI_TOOL_ATTRIBUTES.errorType];
  if (span.statusCode === 2 || (typeof errorType === 'string' && errorType !== '')) {
    const message = span.statusMessage || (typeof errorType === 'string' ? errorType : '');
    return { status: 'error', error: message || 'error' };
  }
  return OK;
}

// Shared: callers spread it into the call they build, so one object serves every span.
const OK: Pick<ExtractedCall, 'status' | 'error'> = Object.freeze({ status: 'ok' });

/** The text after `prefix ` in the span name, e.g. `execute_tool get_weather` → `get_weather`. */
export function nameAfter(span: SpanDigest, prefix: string): string | undefined {
  if (!span.name.startsWith(`${prefix} `)) return undefined;
  const rest = span.name.slice(prefix.length + 1).trim();
  return rest === '' ? undefined : rest;
}
