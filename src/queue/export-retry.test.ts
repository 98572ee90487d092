import { describe, expect, it } from 'vitest';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { configSchema } from '../config/config-schema.js';
import { backoffDelay, shouldRetry } from './export-retry.js';
import { exportBacklogMaxAgeMs } from './export-retry-policy.js';

const policy = { maxAgeMs: 3_600_000, maxBackoffMs: 60_000 };
const exportFailed = new SpanscoreError('SS_EXPORT_FAILED', 'backend down');
const judgeDown = new SpanscoreError('SS_JUDGE_UNAVAILABLE', 'judge 503');

describe('export retry by age', () => {
  it('retries an export failure by age, whatever the attempt count', () => {
    expect(
      shouldRetry(exportFailed, { attemptsMade: 40, attempts: 5, ageMs: 3_599_000 }, policy),
    ).toEqual({
      retry: true,
    });
    expect(
      shouldRetry(exportFailed, { attemptsMade: 41, attempts: 5, ageMs: 3_601_000 }, policy),
    ).toEqual({
      retry: false,
      reason: 'export still failing after 3601 s (export.retryMaxAgeMs 3600000): backend down',
    });
  });

  it('keeps the attempt count for other retryable failures', () => {
    expect(shouldRetry(judgeDown, { attemptsMade: 3, attempts: 5, ageMs: 10 }, policy)).toEqual({
      retry: true,
    });
    expect(shouldRetry(judgeDown, { attemptsMade: 4, attempts: 5, ageMs: 10 }, policy)).toEqual({
      retry: false,
      reason: 'judge 503',
    });
  });

  it('backs off exponentially up to the cap', () => {
    expect([1, 2, 3, 4, 7, 8, 50].map(n => backoffDelay(n, 1000, 60_000))).toEqual([
      1000, 2000, 4000, 8000, 60_000, 60_000, 60_000,
    ]);
  });
});

describe('exportBacklogMaxAgeMs', () => {
  it('outlasts the last retry: the retry age, its longest backoff, and an hour for a stalled or queued job', () => {
    const config = configSchema.parse({
      export: { retryMaxAgeMs: 7_200_000, retryMaxBackoffMs: 5_400_000 },
    });
    expect(exportBacklogMaxAgeMs(config)).toBe(7_200_000 + 5_400_000 + 3_600_000);
  });
});
