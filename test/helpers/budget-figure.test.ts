import { describe, expect, it } from 'vitest';
import { confirmedReading } from './budget-figure.js';

describe('confirmedReading', () => {
  const runs = (...figures: number[]) => {
    const queue = [...figures];
    const again = () => {
      const next = queue.shift();
      if (next === undefined) throw new Error('asked for a run more than it should');
      return next;
    };
    return { again, left: () => queue.length };
  };

  it('holds a first reading within the budget without running again', () => {
    const r = runs(9_999);
    expect(confirmedReading(100, 100, r.again)).toEqual({ value: 100, runs: [100] });
    expect(r.left()).toBe(1);
  });

  it('holds the median of three when the first reading is over: one outlier passes', () => {
    const r = runs(95, 97);
    expect(confirmedReading(130, 100, r.again)).toEqual({ value: 97, runs: [130, 95, 97] });
  });

  it('fails a change that reads over the budget on two runs of three', () => {
    expect(confirmedReading(130, 100, runs(95, 104).again).value).toBe(104);
    expect(confirmedReading(101, 100, runs(102, 99).again).value).toBe(101);
  });
});
