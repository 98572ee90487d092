import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { GcTally, sumGcFigures } from '../../bench/gc-trace.js';

/**
 * A real Node process's `--trace-gc-nvp` output: `keep` objects of about 100 bytes each made and
 * held while 64 MB of short-lived arrays churn around them (young collections run, and what is
 * held lives through them), then one full collection (`gc()`).
 */
function nvpOutput(keep: number): string {
  const script = `
    const kept = [];
    for (let i = 0; i < ${keep}; i++) kept.push({ a: i, b: 'x' + i, c: [i, i + 1, i + 2] });
    let sink = 0;
    for (let i = 0; i < 64 * 1024; i++) sink += new Array(120).fill(i).length;
    globalThis.gc();
    console.log('kept', kept.length, sink > 0);
  `;
  const run = spawnSync(
    process.execPath,
    ['--trace-gc-nvp', '--expose-gc', '--max-semi-space-size=4', '-e', script],
    { encoding: 'utf8' },
  );
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toContain(`kept ${keep} true`);
  return run.stdout;
}

function tallyOf(output: string, chunk = output.length): GcTally {
  const tally = new GcTally();
  tally.start();
  for (let at = 0; at < output.length; at += chunk) tally.feed(output.slice(at, at + chunk));
  tally.stop();
  return tally;
}

describe('GcTally (the load runs’ garbage collection figures)', () => {
  it('counts what V8 promoted: held objects promoted, churn that dies young not', () => {
    const held = tallyOf(nvpOutput(200_000)).figures();
    const churnOnly = tallyOf(nvpOutput(0)).figures();
    // 64 MB of churn through 4 MB semi-spaces: young collections, in both runs.
    expect(held.scavenges).toBeGreaterThanOrEqual(4);
    expect(churnOnly.scavenges).toBeGreaterThanOrEqual(4);
    // 200,000 held objects of three parts each (object, string, array): at least 10 MB promoted.
    expect(held.promotedBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(churnOnly.promotedBytes).toBeLessThan(held.promotedBytes / 10);
    // gc() is a full collection, and its pause is counted.
    expect(held.fullCollections).toBeGreaterThanOrEqual(1);
    expect(held.pauseMs).toBeGreaterThan(0);
    expect(held.lines).toBe(held.scavenges + held.fullCollections);
  });

  it('joins lines split across chunks, and ignores other output', () => {
    const output = `kept nothing\n${nvpOutput(50_000)}spanscore: listening\n`;
    const whole = tallyOf(output).figures();
    expect(tallyOf(output, 7).figures()).toEqual(whole);
    expect(tallyOf(output, 1).figures()).toEqual(whole);
    expect(whole.lines).toBeGreaterThan(0);
  });

  it('counts only between start and stop', () => {
    const output = nvpOutput(50_000);
    const tally = new GcTally();
    tally.feed(output);
    tally.start();
    tally.stop();
    tally.feed(output);
    expect(tally.figures().lines).toBe(0);
    tally.start();
    tally.feed(output);
    const once = tally.figures();
    tally.feed(output);
    expect(tally.figures().promotedBytes).toBe(2 * once.promotedBytes);
    const summed = sumGcFigures([once, once]);
    const twice = tally.figures();
    expect([summed.lines, summed.scavenges, summed.fullCollections, summed.promotedBytes]).toEqual([
      twice.lines,
      twice.scavenges,
      twice.fullCollections,
      twice.promotedBytes,
    ]);
    expect(summed.pauseMs).toBeCloseTo(twice.pauseMs, 6);
  });
});
