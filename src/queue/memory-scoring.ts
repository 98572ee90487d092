import type { SpanDigest } from '../ingest/span-digest.js';
import { ScoringRun } from './scoring-queue.js';
import { ownRecords, type HeldTrace } from './trace-byte-buffer.js';

/**
 * A trace taken from the buffer and not finished: queued, being scored, or waiting to retry; the
 * scoring queue's run of it, its attempts and its end the assembler's (`score`, `finished`).
 */
export class MemoryScoring extends ScoringRun {
  /** Its spans were read for scoring: spans arriving now are late. */
  started = false;
  /** Batches of late spans kept to rescore with (`rescoreLateSpans`). */
  readonly late: SpanDigest[][] = [];
  /** The spans of {@link MemoryScoring.late} and their records' bytes, counted as held. */
  lateSpans = 0;
  lateBytes = 0;
  constructor(
    traceId: string,
    readonly held: HeldTrace,
    private readonly assembler: {
      score(entry: MemoryScoring): ReturnType<ScoringRun['attempt']>;
      finished(traceId: string, entry: MemoryScoring): void;
    },
  ) {
    super(traceId);
  }
  /**
   * Keeps a late batch to rescore with, within `maxSpans` with the spans scored and the late ones
   * kept before: the spans that fit, their records made its own (`ownRecords`), the rest counted
   * in its `truncated` (its rescore says so). Returns what it kept (none when the trace is at its
   * cap); the caller counts them as held and the rest refused.
   */
  keepLate(batch: SpanDigest[], maxSpans: number): { spans: number; bytes: number } {
    const room = Math.max(0, maxSpans - this.held.spans.length - this.lateSpans);
    this.held.truncated += Math.max(0, batch.length - room);
    if (room === 0) return { spans: 0, bytes: 0 };
    const kept = room >= batch.length ? batch : batch.slice(0, room);
    const bytes = ownRecords(kept, 0);
    this.late.push(kept);
    this.lateSpans += kept.length;
    this.lateBytes += bytes;
    return { spans: kept.length, bytes };
  }
  attempt(): ReturnType<ScoringRun['attempt']> {
    this.started = true;
    return this.assembler.score(this);
  }
  scoredOrFailed(): void {
    this.assembler.finished(this.traceId, this);
  }
}
