import { describe, expect, it } from 'vitest';
import { agentTrace } from '../../test/helpers/trace-builder.js';
import { defineScorer } from './define-scorer.js';
import { runScorers, runScorersAtOnce } from './run-scorers.js';
import type { Scorer } from './scorer.js';

const trace = agentTrace(['a', { name: 'b', error: 'boom' }]);
const run = (scorer: ReturnType<typeof defineScorer>, options: Record<string, unknown> = {}) =>
  runScorers(trace, undefined, [{ scorer, options: scorer.parseOptions(options) }], new Map());

describe('defineScorer and runScorers', () => {
  it('turns a boolean into 1 or 0 and labels it against the threshold', async () => {
    const s = defineScorer({
      name: 'no_errors',
      score: t => t.toolSequence.every(c => c.status === 'ok'),
    });
    expect(await run(s)).toEqual([
      {
        scorer: 'no_errors',
        kind: 'custom',
        version: expect.stringMatching(/^[0-9a-f]{12}$/),
        result: { status: 'scored', score: 0, label: 'fail', reason: 'failed', details: {} },
      },
    ]);
  });

  it("turns a number into a score, with the default 0.5 threshold or the suite's", async () => {
    const s = defineScorer({
      name: 'share_ok',
      score: t => t.toolSequence.filter(c => c.status === 'ok').length / t.toolSequence.length,
    });
    expect((await run(s))[0]!.result).toMatchObject({ score: 0.5, label: 'pass' });
    expect((await run(s, { threshold: 0.8 }))[0]!.result).toMatchObject({
      score: 0.5,
      label: 'fail',
    });
  });

  it('passes an explicit skipped result through', async () => {
    const s = defineScorer({
      name: 'skips',
      score: () => ({ status: 'skipped', reason: 'not today' }),
    });
    expect((await run(s))[0]!.result).toEqual({ status: 'skipped', reason: 'not today' });
  });

  it('reports a throw, or an out-of-range score, as failed without stopping other scorers', async () => {
    const throws = defineScorer({
      name: 'throws',
      score: () => Promise.reject(new TypeError('bad input')),
    });
    const range = defineScorer({ name: 'range', score: () => 1.5 });
    const fine = defineScorer({ name: 'fine', score: () => true });
    const out = await runScorers(
      trace,
      undefined,
      [throws, range, fine].map(scorer => ({ scorer, options: {} })),
      new Map(),
    );
    expect(out.map(o => o.result)).toEqual([
      { status: 'failed', error: 'bad input', errorType: 'TypeError' },
      {
        status: 'failed',
        error: 'custom scorer range returned score 1.5; scores must be numbers from 0 to 1',
        errorType: 'RangeError',
      },
      { status: 'scored', score: 1, label: 'pass', reason: 'passed', details: {} },
    ]);
  });

  it('validates its definition and the threshold option', () => {
    expect(() => defineScorer({ name: '9lives', score: () => 1 })).toThrow(
      /name must start with a letter/,
    );
    expect(() =>
      defineScorer({ name: 'ok', score: () => 1 }).parseOptions({ threshold: 'high' }),
    ).toThrow(/threshold/);
  });

  it('answers at once when no scorer awaits, and awaits the rest in order after one that does', async () => {
    const scorer = (name: string, score: Scorer['score']): Scorer => ({
      name,
      kind: 'deterministic',
      description: name,
      parseOptions: () => ({}),
      score,
    });
    const result = { status: 'skipped', reason: 'r' } as const;
    const now = scorer('now', () => result);
    const later = scorer('later', () => Promise.resolve(result));
    const throws = scorer('throws', () => {
      throw new TypeError('bad input');
    });
    const resolved = (...scorers: Scorer[]) => scorers.map(s => ({ scorer: s, options: {} }));
    const atOnce = runScorersAtOnce(trace, undefined, resolved(now, throws, now), new Map());
    expect(Array.isArray(atOnce)).toBe(true);
    const awaited = runScorersAtOnce(
      trace,
      undefined,
      resolved(now, later, throws, now),
      new Map(),
    );
    expect(Array.isArray(awaited)).toBe(false);
    expect((await awaited).map(o => [o.scorer, o.result.status])).toEqual([
      ['now', 'skipped'],
      ['later', 'skipped'],
      ['throws', 'failed'],
      ['now', 'skipped'],
    ]);
    const propagate = () => true;
    expect(() =>
      runScorersAtOnce(trace, undefined, resolved(throws), new Map(), propagate),
    ).toThrow('bad input');
    await expect(
      runScorers(trace, undefined, resolved(throws), new Map(), propagate),
    ).rejects.toThrow('bad input');
    await expect(
      runScorersAtOnce(trace, undefined, resolved(later, throws), new Map(), propagate),
    ).rejects.toThrow('bad input');
  });
});
