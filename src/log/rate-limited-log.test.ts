import { describe, expect, it } from 'vitest';
import { rateLimitedLog } from './rate-limited-log.js';

describe('rateLimitedLog', () => {
  it('writes a key once per interval and says how many lines were held back', () => {
    const lines: string[] = [];
    let t = 0;
    const log = rateLimitedLog(
      l => lines.push(l),
      1000,
      () => t,
    );
    log('a', () => 'first a');
    log('a', () => 'second a');
    log('b', () => 'first b');
    log('a', () => 'third a');
    t = 999;
    log('a', () => 'fourth a');
    expect(lines).toEqual(['first a', 'first b']);
    t = 1000;
    log('a', () => 'fifth a');
    expect(lines).toEqual(['first a', 'first b', 'fifth a (and 3 more like it)']);
  });

  it('forgets the oldest key past maxKeys, so a flood of keys holds bounded memory', () => {
    const lines: string[] = [];
    const log = rateLimitedLog(
      l => lines.push(l),
      1000,
      () => 0,
      2,
    );
    log('a', () => 'a');
    log('b', () => 'b');
    log('c', () => 'c'); // drops a
    log('a', () => 'a again');
    log('c', () => 'c again'); // still remembered: held
    expect(lines).toEqual(['a', 'b', 'c', 'a again']);
  });
});
