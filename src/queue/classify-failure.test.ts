import { describe, expect, it } from 'vitest';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { classifyFailure, judgeErrorsToRetry } from './classify-failure.js';

describe('classifyFailure: the one retry classifier of both drivers', () => {
  it.each([
    [new SpanscoreError('SS_EXPORT_FAILED', 'backend down'), { action: 'retry' }],
    [new SpanscoreError('SS_JUDGE_UNAVAILABLE', '503'), { action: 'retry' }],
    [new SpanscoreError('SS_INGEST_UNAVAILABLE', 'redis'), { action: 'retry' }],
    [
      new SpanscoreError('SS_JUDGE_RATE_LIMITED', '429', { retryAfterSeconds: 2.5 }),
      { action: 'rate_limited', pauseMs: 2500 },
    ],
    [
      new SpanscoreError('SS_JUDGE_RATE_LIMITED', '429'),
      { action: 'rate_limited', pauseMs: 10_000 },
    ],
    [
      new SpanscoreError('SS_JUDGE_RATE_LIMITED', '429', { retryAfterSeconds: 0 }),
      { action: 'rate_limited', pauseMs: 1 },
    ],
    [new SpanscoreError('SS_SUITE_INVALID', 'bad'), { action: 'fail' }],
    [new SpanscoreError('SS_JUDGE_INVALID_OUTPUT', 'off schema'), { action: 'fail' }],
    [new TypeError('a bug'), { action: 'fail' }],
    ['a string', { action: 'fail' }],
  ])('%s → %o', (error, action) => {
    expect(classifyFailure(error)).toEqual(action);
  });

  it('lets judge errors reject to retry before the last attempt, and a 429 always', () => {
    const unavailable = new SpanscoreError('SS_JUDGE_UNAVAILABLE', '503');
    const limited = new SpanscoreError('SS_JUDGE_RATE_LIMITED', '429');
    const invalid = new SpanscoreError('SS_JUDGE_INVALID_OUTPUT', 'off schema');
    expect([unavailable, limited, invalid].map(judgeErrorsToRetry(false))).toEqual([
      true,
      true,
      false,
    ]);
    expect([unavailable, limited, invalid].map(judgeErrorsToRetry(true))).toEqual([
      false,
      true,
      false,
    ]);
  });
});
