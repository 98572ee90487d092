import { describe, expect, it } from 'vitest';
import { budgetedNode, BUDGETS } from '../../bench/budget-figures.js';
import { budgetFigure } from '../helpers/budget-figure.js';
import type { PipelineFigures } from '../../bench/pipeline-allocation.js';

/**
 * Bytes the memory results store holds per scored trace, counted (not timed), in a process of its
 * own on the built `dist/`, for the load benchmark's workload (1,024 20-span traces, two
 * deterministic scorers; see `bench/pipeline-allocation.ts`): the heap it holds after the pass
 * (after full collections), against an empty store in its place. The Redis store's bytes, which
 * no Node version changes, are counted in redis-stored-bytes-per-trace.test.ts.
 *
 * Measured when set (2026-11-28): 7,572–7,635 on Node 20.20 (10 runs), 6,904–6,922 on 22.23 and
 * 6,855–6,856 on 24.22 (3 each; the heap's layout is V8's). The budgets (`BUDGETS` in
 * bench/budget-figures.ts, where the bench prints them beside the figures) are those maxima and
 * about 2%. To lower one: keep less per trace, measure with `npm run bench -- --budgets`, and set
 * the budget to the new maximum and the same margin in `BUDGETS`, on every Node major there, with
 * the figures in this comment.
 *
 * Since it holds run records and results compact (`compactRecordLine`, `compactResultJson`:
 * defaults left out, tool calls as rows, tool sequences as indices; 2026-11-28): 4,846–4,848 on
 * Node 20.20 (5 runs), budget 4,950 (2%); 4,169–4,170 on Node 24.22 (3 runs), budget 4,260; Node
 * 22 was not on the host and keeps the budget above (an upper bound still).
 */
describe('results store: bytes stored per scored trace', () => {
  it('stays within its budget with the memory results store', () => {
    // The figure's process is shared with allocated-bytes-per-span.test.ts (budgetFigure).
    const f = budgetFigure<PipelineFigures>('allocation-memory');
    expect(f.traces).toBe(1024);
    expect(f.evaluationSpans).toBe(2 * 1024);
    // Something was stored for every trace: a record and its results are more than 1 kB.
    expect(f.storedBytesPerTrace).toBeGreaterThan(1000);
    expect(f.storedBytesPerTrace).toBeLessThanOrEqual(
      BUDGETS.memoryStoredBytesPerTrace[budgetedNode()],
    );
  }, 120_000);
});
