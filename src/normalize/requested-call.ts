import type { SpanDigest } from '../ingest/span-digest.js';
import type { ExtractedCall, ToolCallOutcome } from './tool-call.js';

/**
 * A call a model requested on one of the trace's spans, before pairing (`appendUnmatchedRequests`).
 * Most requests are paired with the run that executed them and merged into it, so a `ToolCall` is
 * made only for a request nothing ran: a ToolCall each, copied from the extractor's call, was the
 * larger part of what reading the requests allocated. It answers what pairing and `absorb` read,
 * as the ToolCall it would become (`toToolCall`) would.
 */
export class RequestedCall {
  constructor(
    /** The call as the extractor read it; not copied, not changed. */
    readonly extracted: ExtractedCall,
    /** The span whose model asked for the call. */
    readonly span: SpanDigest,
    /** Id of the extractor that read it. */
    readonly convention: string,
    /** Its canonical name, aliases applied (`canonicalToolName`). */
    readonly canonicalName: string,
  ) {}

  get source(): 'requested' {
    return 'requested';
  }

  get callId(): string | undefined {
    return this.extracted.callId;
  }

  get arguments(): unknown {
    return this.extracted.arguments;
  }

  get result(): unknown {
    return this.extracted.result;
  }

  /** A refusal the extractor read, else its status (`ok` when it read none). */
  get outcome(): ToolCallOutcome {
    return this.extracted.refused ? 'refused' : (this.extracted.status ?? 'ok');
  }

  get error(): string | undefined {
    return this.extracted.error;
  }

  get requestedBy(): string {
    return this.span.spanId;
  }

  /** No tool span ran it. */
  get durationMs(): undefined {
    return undefined;
  }

  /** When a call nothing ran is placed: the requesting span's end. */
  get startTimeUnixNano(): bigint {
    return this.span.endTimeUnixNano;
  }
}
