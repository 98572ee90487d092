import { describe, expect, it } from 'vitest';
import type { Judge, JudgeRequest } from './judge.js';
import { withRateLimit } from './rate-limited-judge.js';

describe('withRateLimit', () => {
  it('starts at most max calls per interval, and no more than concurrency at once', async () => {
    const starts: number[] = [];
    let running = 0;
    let peak = 0;
    const judge: Judge = {
      async ask<T>(request: JudgeRequest<T>) {
        starts.push(Date.now());
        peak = Math.max(peak, ++running);
        await new Promise(r => setTimeout(r, 20));
        running--;
        return {
          output: request.parse(1),
          model: 'm',
          usage: { inputTokens: 0, outputTokens: 0 },
          cached: false,
        };
      },
    };
    const limited = withRateLimit(judge, { max: 2, durationMs: 300 }, 1);
    const request: JudgeRequest<unknown> = {
      model: 'm',
      system: '',
      user: '',
      schemaName: 's',
      jsonSchema: {},
      parse: v => v,
    };
    await Promise.all(Array.from({ length: 5 }, () => limited.ask(request)));
    expect(starts).toHaveLength(5);
    expect(peak).toBe(1);
    // Calls 3 and 5 open the second and third intervals: never earlier than one interval later.
    expect(starts[2]! - starts[0]!).toBeGreaterThanOrEqual(290);
    expect(starts[4]! - starts[2]!).toBeGreaterThanOrEqual(290);
  });
});
