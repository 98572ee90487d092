import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUDGETS } from '../../bench/budget-figures.js';

const CHILD = fileURLToPath(new URL('./held-bytes.child.ts', import.meta.url));

/**
 * What the memory driver holds per buffered span, counted (not timed): heap and external memory
 * after a full garbage collection, in a process of its own, for agent spans whose arguments and
 * results all differ (~300 bytes of attributes each, as the load benchmark's). The budget
 * (`BUDGETS.heldBytesPerSpan`, where its measurements are): bytes a span, attributes included
 * (about 300 of attribute bytes outside the heap, the rest the span's envelope: ids, name, times). Holding each span as an object with
 * its attributes decoded, as the driver did before, costs more on the heap and more to collect.
 */
describe('memory driver: bytes held per buffered span', () => {
  it(`stays within ${BUDGETS.heldBytesPerSpan} bytes a span, most of its attributes outside the heap`, () => {
    const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const { spans, held, heldBytes, bytesPerSpan } = JSON.parse(out) as {
      spans: number;
      held: number;
      heldBytes: number;
      bytesPerSpan: number;
    };
    expect(spans).toBe(40 * 512);
    expect(held).toBe(41 * 512); // nothing scored: every span is still held
    expect(heldBytes / held).toBeGreaterThan(200); // their attribute bytes, outside the heap
    expect(bytesPerSpan).toBeLessThanOrEqual(BUDGETS.heldBytesPerSpan);
  });
});
