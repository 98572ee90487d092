import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { childSpans } from '../../test/helpers/child-spans.js';
import {
  ASSEMBLY_LIMITS,
  ASSEMBLY_POLICY,
  recordingAssembler,
} from '../../test/helpers/memory-assembler.js';
import { createMemoryTraceAssembler } from './memory-trace-assembler.js';

// The memory trace assembler's shutdown: what is buffered is scored, deliveries under way end.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('memory trace assembler: close()', () => {
  it('close() does not wait out export retries: a scored trace is not unfinished, its delivery ends failed', async () => {
    const failures: string[] = [];
    const assembler = createMemoryTraceAssembler({
      ...ASSEMBLY_LIMITS,
      policy: ASSEMBLY_POLICY,
      process: () =>
        Promise.resolve(() =>
          Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'connect ECONNREFUSED')),
        ),
      exportRetry: { maxAgeMs: 3_600_000, maxBackoffMs: 60_000 },
      onFailed: (_id, error) => failures.push((error as Error).message),
    });
    await assembler.accept(childSpans(80, ['root']));
    await vi.advanceTimersByTimeAsync(2010); // scored; its export failed and waits for a retry
    expect(assembler.stats()).toMatchObject({ waitingDeliveries: 1, failed: 0 });
    const closing = assembler.close(10_000);
    await vi.advanceTimersByTimeAsync(0);
    expect(await closing).toEqual({ unfinished: 0 });
    expect(failures).toEqual([
      'not exported: the process stopped while the export was being retried (connect ECONNREFUSED)',
    ]);
  });

  it('close() waits deliveryGraceMs for an export under way, then ends it failed', async () => {
    const failures: string[] = [];
    const assembler = createMemoryTraceAssembler({
      ...ASSEMBLY_LIMITS,
      policy: ASSEMBLY_POLICY,
      deliveryGraceMs: 2000,
      process: () => Promise.resolve(() => new Promise<void>(() => {})), // never answers
      onFailed: (_id, error) => failures.push((error as Error).message),
    });
    await assembler.accept(childSpans(81, ['root']));
    await vi.advanceTimersByTimeAsync(2010);
    let closed = false;
    const closing = assembler.close(10_000).then(r => ((closed = true), r));
    await vi.advanceTimersByTimeAsync(1999);
    expect(closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await closing).toEqual({ unfinished: 0 });
    expect(failures).toEqual(['not exported: the process stopped while the export was under way']);
    expect(assembler.stats()).toMatchObject({ scored: 0, failed: 1 });
  });

  it('close() scores what is buffered now, waits for it, and refuses new spans (503)', async () => {
    const { assembler, processed } = recordingAssembler();
    await assembler.accept(childSpans(30, ['tool'])); // no root: would wait 30 s
    const closing = assembler.close(5000);
    await vi.advanceTimersByTimeAsync(0);
    expect(await closing).toEqual({ unfinished: 0 });
    expect(processed.map(p => p.names)).toEqual([['tool']]);
    await expect(assembler.accept(childSpans(31, ['root']))).rejects.toMatchObject({
      code: 'SS_INGEST_UNAVAILABLE',
    });
  });
});
