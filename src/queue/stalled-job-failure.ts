import { UnrecoverableError } from 'bullmq';

/**
 * What a BullMQ job failed with, as its run record and the log say it: for a job BullMQ failed
 * itself because its worker stalled (died, or blocked past `worker.lockDurationMs`, while holding
 * it) more times than `maxStalledCount` allows, a failure saying so (BullMQ's own reason kept at
 * its end), not retried (`UnrecoverableError`, as BullMQ fails it); else `error` itself.
 */
export function stalledJobFailure(
  job: { deferredFailure?: string | undefined },
  error: Error,
  maxStalledCount: number | undefined,
): Error {
  if (job.deferredFailure === undefined) return error;
  return new UnrecoverableError(
    `the worker scoring it stalled (stopped, or blocked past worker.lockDurationMs) more times than BullMQ allows (maxStalledCount ${maxStalledCount ?? 1}): ${error.message}`,
  );
}
