import PQueue from 'p-queue';
import type { Judge, JudgeAnswer, JudgeCallGate, JudgeRequest } from './judge.js';

/** How fast a judge may be called: at most `max` calls started per `durationMs`. */
export interface JudgeRateLimit {
  max: number;
  durationMs: number;
}

/**
 * A judge that starts at most `limit.max` calls per `limit.durationMs` and runs at most
 * `concurrency` at once, in this process (p-queue). For `spanscore score` and the memory driver;
 * the BullMQ worker limits its judge queue instead, across every worker.
 */
export function withRateLimit(judge: Judge, limit: JudgeRateLimit, concurrency: number): Judge {
  const queue = new PQueue({
    concurrency,
    intervalCap: limit.max,
    interval: limit.durationMs,
    carryoverConcurrencyCount: true,
  });
  return {
    ask<T>(request: JudgeRequest<T>, gate?: JudgeCallGate): Promise<JudgeAnswer<T>> {
      return queue.add(() => judge.ask(request, gate), { throwOnTimeout: true });
    },
  };
}
