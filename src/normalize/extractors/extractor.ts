import { readAttributes } from '../../ingest/read-attributes.js';
import { GEN_AI_TOOL_ATTRIBUTES } from '../../semconv/attributes.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import type { ExtractedCall } from '../tool-call.js';
import type { OfferedTool } from '../tool-definitions.js';

/** A tool result seen in messages, joined to its call by id. */
export interface ToolResultSeen {
  callId: string;
  result: unknown;
  isError: boolean;
  /** The error text of a result marked as an error, when the message records one. */
  error?: string | undefined;
  /**
   * The result is its framework's own answer for a call it did not run (the AI SDK's tool-error
   * for an invalid input or an unknown tool): the call is refused unless a tool span ran it.
   */
  refused?: boolean;
}

/**
 * Reads tool calls in one span convention. The registry (`index.ts`) asks each extractor in order;
 * the first whose `executed` returns a call (or `null`) claims the span as that convention's tool span.
 * Every extractor's `requested` runs on every span, and duplicates are merged afterwards.
 */
export interface ToolCallExtractor {
  /** Stable id, recorded on each call as `convention`. */
  readonly id: string;
  /**
   * The call this span executed; `null` when it is this convention's tool span but records no
   * call it can read (the span is claimed all the same); `undefined` when it is not. One call, not
   * a list: a tool span runs one, and a list of one took about 56 bytes a tool span.
   */
  executed?(span: SpanDigest): ExtractedCall | null | undefined;
  /**
   * Calls a model requested on this span, appended to `calls`, and the results fed back to it
   * (returned; empty when none): `undefined`, with nothing appended, when the span records
   * neither in this convention. The caller's list, not one returned: a model span's one call
   * took a list of its own and an object holding both lists, about 100 bytes a model span.
   */
  requested?(span: SpanDigest, calls: ExtractedCall[]): readonly ToolResultSeen[] | undefined;
  /**
   * The tools this span shows were offered to a model (a model call's tool definitions, an
   * agent's tools), with their JSON Schemas where recorded; `undefined` when it records none.
   */
  offered?(span: SpanDigest): readonly OfferedTool[] | undefined;
  /**
   * A refusal this span records of a call made elsewhere in the trace (a framework that ends its
   * run, or hands the call on, when no tool has the name): the tool's name and the text. Applied
   * to the model's requests of that name that nothing answered.
   */
  refusal?(span: SpanDigest): { toolName: string; error: string } | undefined;
}

/**
 * `status: 'error'` and the message when the span's status is ERROR, `error.type` is set, or the
 * span recorded an `exception` event (OpenTelemetry's `recordException`, which some producers call
 * on a failed tool's span without setting its status). An explicit OK status wins: a span ended
 * OK after an exception it handled (a retried attempt) is no failure. The message is the status
 * message, else the exception's, else `error.type`.
 */
export function spanOutcome(span: SpanDigest): Pick<ExtractedCall, 'status' | 'error'> {
  if (span.statusCode === 1) return OK;
  const errorType = readAttributes(span)[GEN_AI_TOOL_ATTRIBUTES.errorType];
  const exception = span.events.length ? exceptionMessage(span) : undefined;
  if (
    span.statusCode === 2 ||
    (typeof errorType === 'string' && errorType !== '') ||
    exception !== undefined
  ) {
    const message =
      span.statusMessage || exception || (typeof errorType === 'string' ? errorType : '');
    return { status: 'error', error: message || 'error' };
  }
  return OK;
}

/** The message (else the type) of the span's first `exception` event; `undefined` without one. */
function exceptionMessage(span: SpanDigest): string | undefined {
  for (const event of span.events) {
    if (event.name !== 'exception') continue;
    const message = event.attributes['exception.message'] ?? event.attributes['exception.type'];
    return typeof message === 'string' && message !== '' ? message : 'exception';
  }
  return undefined;
}

// Shared: callers spread it into the call they build, so one object serves every span.
const OK: Pick<ExtractedCall, 'status' | 'error'> = Object.freeze({ status: 'ok' });

/** The text after `prefix ` in the span name, e.g. `execute_tool get_weather` → `get_weather`. */
export function nameAfter(span: SpanDigest, prefix: string): string | undefined {
  if (!span.name.startsWith(`${prefix} `)) return undefined;
  const rest = span.name.slice(prefix.length + 1).trim();
  return rest === '' ? undefined : rest;
}
