import { Histogram, Registry, type RegistryContentType } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { histogramObserver } from './histogram-observer.js';

type Step =
  | { labels: [string, string]; value: number; traceId?: string }
  | 'reset'
  | { remove: [string, string] };

/** What `/metrics` prints after `steps`, observed by `observe` or by a histogramObserver. */
async function printed(
  steps: Step[],
  fast: boolean,
): Promise<{ text: string; errors: string[]; observeCalls: number }> {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  const scores = new Histogram({
    name: 'scores',
    help: 'h',
    labelNames: ['scorer', 'service'],
    buckets: [0.1, 0.5, 1],
    enableExemplars: true,
    registers: [registry],
  });
  const lag = new Histogram({ name: 'lag', help: 'h', buckets: [1, 10], registers: [registry] });
  const observeScore = histogramObserver(scores, ['scorer', 'service']);
  const observeLag = histogramObserver(lag, []);
  const errors: string[] = [];
  const observeCalls = vi.spyOn(scores, 'observe');
  for (const [i, step] of steps.entries()) {
    vi.setSystemTime(1_800_000_000_000 + i * 1_234);
    if (step === 'reset') scores.reset();
    else if ('remove' in step) scores.remove(...step.remove);
    else
      try {
        const [scorer, service] = step.labels;
        const exemplarLabels: Record<string, string> =
          step.traceId === undefined ? {} : { trace_id: step.traceId };
        if (fast) {
          observeScore([scorer, service], step.value, exemplarLabels);
          observeLag([], step.value * 7);
        } else {
          // prom-client types exemplar labels as the metric's own label names; any are allowed.
          const observed = { labels: { scorer, service }, value: step.value, exemplarLabels };
          scores.observe(observed as never);
          lag.observe(step.value * 7);
        }
      } catch (error) {
        errors.push(String(error));
      }
  }
  return { text: await registry.metrics(), errors, observeCalls: observeCalls.mock.calls.length };
}

describe('histogramObserver', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('prints what observe prints: sums, buckets, exemplars and their timestamps, errors', async () => {
    const a: [string, string] = ['correctness', 'travel'];
    const b: [string, string] = ['loops', 'travel'];
    const steps: Step[] = [
      { labels: a, value: 1, traceId: 't1' },
      { labels: a, value: 1, traceId: 't2' },
      { labels: a, value: 0.5, traceId: 't3' },
      { labels: a, value: 0.05, traceId: 't4' },
      { labels: a, value: 0.3, traceId: 't5' },
      { labels: a, value: 0.3, traceId: 't6' },
      { labels: a, value: 7, traceId: 't7' }, // past the last bound: +Inf and its exemplar
      { labels: a, value: 9, traceId: 't8' },
      { labels: b, value: 0.2 }, // no exemplar labels
      { labels: b, value: 0.2, traceId: 't9' },
      { labels: b, value: Number.NaN, traceId: 't10' }, // observe throws
      { labels: b, value: 0.2, traceId: 'x'.repeat(130) }, // counted, then the exemplar throws
      { labels: b, value: 0.4, traceId: 't11' },
      { remove: b },
      { labels: b, value: 0.6, traceId: 't12' },
      { labels: b, value: 0.6, traceId: 't13' },
      'reset',
      { labels: a, value: 0.7, traceId: 't14' },
      { labels: a, value: 0.8, traceId: 't15' },
      { labels: b, value: 1, traceId: 't16' },
    ];
    const slow = await printed(steps, false);
    const fast = await printed(steps, true);
    expect(slow.errors).toEqual([
      expect.stringContaining('TypeError: Value is not a valid number'),
      expect.stringContaining('RangeError: Label set size'),
    ]);
    expect(fast.text).toEqual(slow.text);
    expect(fast.errors).toEqual(slow.errors);
    // The observer's own path took most: observe made the series, the exemplars of buckets not
    // seen yet, and what it refuses.
    expect(slow.observeCalls).toBe(18);
    expect(fast.observeCalls).toBe(11);
    expect(fast.text).toContain('scores_bucket{le="1",scorer="correctness",service="travel"} 2 #');
  });
});
