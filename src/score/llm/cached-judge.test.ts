import { describe, expect, it } from 'vitest';
import { judgeCacheKey, withJudgeCache } from './cached-judge.js';
import type { Judge, JudgeRequest } from './judge.js';
import { createMemoryJudgeCache, type JudgeCache } from './judge-cache.js';

const request = (user: string, model = 'm'): JudgeRequest<{ score: number }> => ({
  model,
  system: 'rate it',
  user,
  schemaName: 'rating',
  jsonSchema: { type: 'object' },
  parse: v => {
    const score = (v as { score?: unknown }).score;
    if (typeof score !== 'number') throw new Error('score must be a number');
    return { score };
  },
});

function countingJudge(): { judge: Judge; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    judge: {
      ask<T>(r: JudgeRequest<T>) {
        calls.push(r.user);
        return Promise.resolve({
          output: r.parse({ score: calls.length }),
          model: 'm-1',
          usage: { inputTokens: 10, outputTokens: 2 },
          cached: false,
          costUsd: 0.5,
        });
      },
    },
  };
}

describe('withJudgeCache', () => {
  it('keys by model, prompts and schema', () => {
    const base = judgeCacheKey(request('a'));
    expect(judgeCacheKey(request('a'))).toBe(base);
    expect(judgeCacheKey(request('b'))).not.toBe(base);
    expect(judgeCacheKey(request('a', 'other'))).not.toBe(base);
    expect(judgeCacheKey({ ...request('a'), jsonSchema: { type: 'array' } })).not.toBe(base);
  });

  it('answers a repeated request from the cache, free, and asks again for a new one', async () => {
    const { judge, calls } = countingJudge();
    const cached = withJudgeCache(judge, createMemoryJudgeCache());
    expect(await cached.ask(request('a'))).toMatchObject({
      output: { score: 1 },
      cached: false,
      costUsd: 0.5,
    });
    expect(await cached.ask(request('a'))).toEqual({
      output: { score: 1 },
      model: 'm-1',
      usage: { inputTokens: 0, outputTokens: 0 },
      cached: true,
      costUsd: 0,
    });
    expect((await cached.ask(request('b'))).output).toEqual({ score: 2 });
    expect(calls).toEqual(['a', 'b']);
  });

  it('asks again when a cached answer no longer validates, and scores on when the cache fails', async () => {
    const { judge, calls } = countingJudge();
    const store = createMemoryJudgeCache();
    await store.set(judgeCacheKey(request('a')), {
      output: { score: 'high' },
      model: 'old',
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    expect((await withJudgeCache(judge, store).ask(request('a'))).cached).toBe(false);
    const errors: unknown[] = [];
    const broken: JudgeCache = {
      get: () => Promise.reject(new Error('cache down')),
      set: () => Promise.reject(new Error('cache down')),
    };
    expect(
      (await withJudgeCache(judge, broken, e => errors.push(e)).ask(request('c'))).output,
    ).toEqual({
      score: 2,
    });
    expect(calls).toEqual(['a', 'c']);
    expect(errors.map(e => (e as Error).message)).toEqual(['cache down', 'cache down']);
  });

  it('the memory cache forgets the least recently used answer past its bound', async () => {
    const store = createMemoryJudgeCache(2);
    const answer = { output: 1, model: 'm', usage: { inputTokens: 0, outputTokens: 0 } };
    await store.set('a', answer);
    await store.set('b', answer);
    await store.get('a');
    await store.set('c', answer);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toEqual(answer);
  });
});
