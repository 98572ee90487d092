import type { DriverEvents } from './queue-driver.js';
import { stalledJobFailure } from './stalled-job-failure.js';
import { traceIdsOf, type TraceJobData } from './trace-job.js';

/** What the `failed` event of a trace or judge job tells of the job. */
export interface FailedTraceJob {
  data: TraceJobData;
  attemptsMade: number;
  opts: { attempts?: number };
  /** Set when BullMQ failed the job itself (see `stalledJobFailure`). */
  deferredFailure?: string;
}

/**
 * The listener of a trace or judge worker's `failed` event (`phase`: which pass its jobs run): an
 * attempt that failed is said in the log each time; the job's traces are reported failed
 * (`onTraceFailed`) once its last attempt failed, or at once for a failure not worth retrying
 * (`UnrecoverableError`, which the processors throw, and BullMQ's own for a job whose worker
 * stalled more times than `maxStalledCount` allows: then said so, see `stalledJobFailure`).
 */
export function traceJobFailed(
  events: Pick<DriverEvents, 'log' | 'onTraceFailed'>,
  phase: 'deterministic' | 'llm',
): (job: FailedTraceJob | undefined, failure: Error) => void {
  const what = phase === 'llm' ? 'LLM scoring of trace' : 'trace';
  return (job, failure) => {
    // The trace and judge workers keep BullMQ's maxStalledCount (1).
    const error = job ? stalledJobFailure(job, failure, undefined) : failure;
    const traceIds = job ? traceIdsOf(job.data) : [];
    events.log(
      `spanscore: ${what} ${traceIds.join(', ') || '?'} attempt ${job?.attemptsMade ?? '?'} failed: ${error.message}`,
    );
    if (
      job &&
      (job.attemptsMade >= (job.opts.attempts ?? 1) || error.name === 'UnrecoverableError')
    )
      for (const traceId of traceIds) events.onTraceFailed(traceId, phase, error);
  };
}
