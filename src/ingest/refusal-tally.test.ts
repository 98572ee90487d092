import { describe, expect, it } from 'vitest';
import {
  createRefusalTally,
  MAX_FIX_CHARS,
  REFUSAL_REASONS,
  type RefusalReason,
} from './refusal-tally.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A tally on a clock the test moves. */
function tallyAt(start = T0, horizonMs?: number) {
  const clock = { now: start };
  const tally = createRefusalTally({
    now: () => clock.now,
    ...(horizonMs !== undefined && { horizonMs }),
  });
  return { tally, clock };
}

describe('createRefusalTally', () => {
  it('counts by reason over the window asked for, the latest reason first, with its latest answer', () => {
    const { tally, clock } = tallyAt();
    tally.record('token', 'missing or malformed bearer token');
    clock.now += 2 * MINUTE;
    tally.record('wrong_path', 'POST /v1/traces/v1/traces is not an OTLP endpoint: fix A');
    clock.now += 5_000;
    tally.record('wrong_path', 'POST /v1/trace is not an OTLP endpoint: fix B');
    clock.now += MINUTE;
    tally.record('token', 'unknown bearer token');

    expect(tally.refused(T0 - HOUR, clock.now)).toEqual([
      {
        reason: 'token',
        count: 2,
        lastAtUnixMs: T0 + 3 * MINUTE + 5_000,
        fix: 'unknown bearer token',
      },
      {
        reason: 'wrong_path',
        count: 2,
        lastAtUnixMs: T0 + 2 * MINUTE + 5_000,
        fix: 'POST /v1/trace is not an OTLP endpoint: fix B',
      },
    ]);
    // A window that ends before the latest token refusal: that one's minute is left out.
    expect(tally.refused(T0 - HOUR, T0 + 2 * MINUTE + 30_000)).toEqual([
      {
        reason: 'wrong_path',
        count: 2,
        lastAtUnixMs: T0 + 2 * MINUTE + 5_000,
        fix: 'POST /v1/trace is not an OTLP endpoint: fix B',
      },
      { reason: 'token', count: 1, lastAtUnixMs: T0, fix: 'missing or malformed bearer token' },
    ]);
    // A window after every refusal holds none.
    expect(tally.refused(clock.now + 2 * MINUTE, clock.now + HOUR)).toEqual([]);
  });

  it('forgets what is older than its horizon, so its size is bounded by time, not traffic', () => {
    const { tally, clock } = tallyAt(T0, 2 * HOUR);
    for (let i = 0; i < 5 * 60; i++) {
      tally.record('rate', 'span buffer full');
      tally.record('rate', 'span buffer full');
      clock.now += MINUTE;
    }
    const [rate] = tally.refused(0, clock.now);
    // Two hours of minutes, each with two, and the minute the horizon's edge cuts.
    expect(rate!.count).toBeGreaterThanOrEqual(2 * 120);
    expect(rate!.count).toBeLessThanOrEqual(2 * 121);
    clock.now += 3 * HOUR;
    expect(tally.refused(0, clock.now)).toEqual([]);
  });

  it('bounds an answer that quotes a hostile request, and keeps it as plain text', () => {
    const { tally } = tallyAt();
    const path = `/v1/traces/${'<img src=x onerror=alert(1)>'.repeat(500)}`;
    tally.record('wrong_path', `POST ${path} is not an OTLP endpoint of spanscore`);
    const [wrong] = tally.refused(0, T0 + MINUTE);
    expect(wrong!.fix).toHaveLength(MAX_FIX_CHARS);
    expect(wrong!.fix.endsWith('…')).toBe(true);
    expect(wrong!.fix.startsWith('POST /v1/traces/<img src=x onerror=alert(1)>')).toBe(true);
  });

  it('replaces control and bidirectional-override characters, and never cuts a surrogate pair', () => {
    const { tally } = tallyAt();
    tally.record('content_type', 'unsupported content type a\u0000b\u001b[31m\u202egnp.exe');
    tally.record('decode', `${'x'.repeat(MAX_FIX_CHARS - 2)}😀 and more`);
    const byReason = Object.fromEntries(tally.refused(0, T0 + MINUTE).map(r => [r.reason, r]));
    expect(byReason.content_type!.fix).toBe('unsupported content type a b [31m gnp.exe');
    const decode = byReason.decode!.fix;
    expect(decode).toBe(`${'x'.repeat(MAX_FIX_CHARS - 2)}…`);
    expect(decode).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('holds only its reasons: anything else is not counted', () => {
    const { tally } = tallyAt();
    for (let i = 0; i < 1000; i++) tally.record(`made_up_${i}` as RefusalReason, 'x');
    tally.record('size', 'request body exceeds 100 bytes');
    expect(tally.refused(0, T0 + MINUTE).map(r => r.reason)).toEqual(['size']);
    expect(REFUSAL_REASONS).toEqual([
      'wrong_path',
      'token',
      'content_type',
      'size',
      'decode',
      'rate',
      'unavailable',
    ]);
  });

  it('keeps its minutes in order when the clock is set back', () => {
    const { tally, clock } = tallyAt();
    tally.record('rate', 'full');
    clock.now -= 10 * MINUTE;
    tally.record('rate', 'full again');
    expect(tally.refused(T0 - HOUR, T0 + MINUTE)).toEqual([
      { reason: 'rate', count: 2, lastAtUnixMs: T0, fix: 'full again' },
    ]);
  });

  it('lists refusals of the same millisecond in the order they came, the last first', () => {
    const { tally } = tallyAt();
    tally.record('token', 'no token');
    tally.record('size', 'too large');
    tally.record('decode', 'bad JSON');
    tally.record('token', 'no token again');
    expect(tally.refused(T0 - HOUR, T0 + MINUTE).map(r => r.reason)).toEqual([
      'token',
      'decode',
      'size',
    ]);
  });
});
