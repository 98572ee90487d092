import { generateMulti } from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { judgeQueueLocation, shardOfTrace, traceQueueShards } from './queue-shards.js';

const slotOf = (key: string): number => generateMulti([key]);

describe('traceQueueShards', () => {
  it('keeps the one-Redis layout unchanged: <prefix>:score-trace, then score-trace-1 …', () => {
    expect(traceQueueShards('spanscore', 1, false)).toEqual([
      { prefix: 'spanscore', name: 'score-trace' },
    ]);
    expect(traceQueueShards('p', 3, false).map(s => `${s.prefix}:${s.name}`)).toEqual([
      'p:score-trace',
      'p:score-trace-1',
      'p:score-trace-2',
    ]);
  });

  it('gives every key of a shard one hash tag on a cluster, and shard i a slot in range i', () => {
    for (const count of [1, 2, 3, 4, 6]) {
      const shards = traceQueueShards('spanscore', count, true);
      shards.forEach((shard, i) => {
        const slots = ['wait', 'delayed', 'meta', 'events', 'id'].map(k =>
          slotOf(`${shard.prefix}:${shard.name}:${k}`),
        );
        expect(new Set(slots).size).toBe(1);
        // redis-cli --cluster create's ranges for `count` masters (rounded as it rounds).
        expect(slots[0]).toBeGreaterThanOrEqual(Math.round((i * 16384) / count));
        expect(slots[0]).toBeLessThan(Math.round(((i + 1) * 16384) / count));
      });
    }
  });

  it('puts the judge queue under its own tag on a cluster', () => {
    const judge = judgeQueueLocation('spanscore', true);
    expect(judge.prefix).toBe('spanscore:{j}');
    expect(slotOf(`${judge.prefix}:judge:wait`)).toBe(slotOf('{j}'));
    expect(judgeQueueLocation('spanscore', false)).toEqual({ prefix: 'spanscore', name: 'judge' });
  });
});

describe('shardOfTrace', () => {
  it('sends every trace to shard 0 of 1, and spreads random trace ids evenly over 4', () => {
    expect(shardOfTrace('abc', 1)).toBe(0);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) {
      const id = (BigInt(i) * 0x9e3779b97f4a7c15n).toString(16).padStart(32, '0');
      counts[shardOfTrace(id, 4)]!++;
    }
    for (const n of counts) expect(Math.abs(n - 1000)).toBeLessThan(150);
    expect(shardOfTrace('0af7651916cd43dd8448eb211c80319c', 4)).toBe(
      shardOfTrace('0af7651916cd43dd8448eb211c80319c', 4),
    );
  });
});
