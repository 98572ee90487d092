import { describe, expect, it } from 'vitest';
import type { CallOutcome } from './call-outcomes.js';
import {
  FailureSignatureMinutes,
  MAX_EXAMPLE_TRACES,
  MAX_MINUTE_CHARS,
  MAX_SIGNATURES_PER_TOOL,
  OTHER_SIGNATURE,
  parseSignatureMinute,
} from './failure-signature-minutes.js';
import { MAX_SIGNATURE_CHARS } from './failure-signature.js';
import { MINUTE_MS } from './minute-aggregates.js';
import { summarizeFailures } from './summarize-failures.js';

const bounds = { maxServices: 20, maxToolsPerService: 30 };
const T0 = 1_700_000_040_000; // the start of a minute

function call(error: string | undefined, more: Partial<CallOutcome> = {}): CallOutcome {
  return {
    service: 'shop',
    version: '1.0.0',
    tool: 'get_weather',
    outcome: 'error',
    error,
    traceId: 't1',
    ...more,
  };
}

const read = (minutes: FailureSignatureMinutes, filter = {}) =>
  summarizeFailures(minutes.minutesIn(T0 - 3_600_000, T0 + 3_600_000), 0, 1, filter);

describe('FailureSignatureMinutes and summarizeFailures', () => {
  it('counts failed and refused calls by signature, with times, versions and example traces', () => {
    const m = new FailureSignatureMinutes(bounds);
    m.count([call('no station 12', { traceId: 'a' }), call(undefined, { outcome: 'ok' })], T0 + 5);
    m.count(
      [
        call('no station 34', { traceId: 'b', version: '1.1.0' }),
        call('unknown tool', { outcome: 'refused', traceId: 'b', version: '1.1.0' }),
      ],
      T0 + MINUTE_MS + 7,
    );
    m.count([call('no station 56', { traceId: 'c' })], T0 + 2 * MINUTE_MS);
    const got = read(m);
    expect(got.signatures).toEqual([
      {
        service: 'shop',
        tool: 'get_weather',
        signature: 'no station <n>',
        count: 3,
        errors: 3,
        refused: 0,
        firstSeenUnixMs: T0 + 5,
        lastSeenUnixMs: T0 + 2 * MINUTE_MS,
        versions: ['1.0.0', '1.1.0'],
        exampleTraceIds: ['c', 'b', 'a'],
      },
      {
        service: 'shop',
        tool: 'get_weather',
        signature: 'unknown tool',
        count: 1,
        errors: 0,
        refused: 1,
        firstSeenUnixMs: T0 + MINUTE_MS + 7,
        lastSeenUnixMs: T0 + MINUTE_MS + 7,
        versions: ['1.1.0'],
        exampleTraceIds: ['b'],
      },
    ]);
    expect(got.other).toEqual([]);
    expect(read(m, { version: '1.1.0' }).signatures.map(s => [s.signature, s.count])).toEqual([
      ['no station <n>', 1],
      ['unknown tool', 1],
    ]);
    expect(read(m, { tool: 'other_tool' }).signatures).toEqual([]);
    expect(read(m, { service: 'shop', tool: 'get_weather' }).signatures).toHaveLength(2);
  });

  it(`keeps ${MAX_EXAMPLE_TRACES} example traces, the newest, and ids of a sane length only`, () => {
    const m = new FailureSignatureMinutes(bounds);
    for (const id of ['a', 'b', 'a', 'c', 'd', 'x'.repeat(65), ''])
      m.count([call('boom', { traceId: id })], T0);
    expect(read(m).signatures[0]!.exampleTraceIds).toEqual(['d', 'c', 'b']);
  });

  it(`lists ${MAX_SIGNATURES_PER_TOOL} signatures per service and tool in a minute; the rest is other`, () => {
    const m = new FailureSignatureMinutes(bounds);
    const errors = Array.from({ length: 25 }, (_, i) => `failure ${String.fromCharCode(97 + i)}`);
    m.count(
      errors.map(e => call(e)),
      T0,
    );
    m.count([call('failure a'), call('failure y')], T0 + 1);
    m.count([call('x', { tool: 'search' })], T0 + 2);
    expect([...m.signatures(T0)].filter(e => e.signature === OTHER_SIGNATURE)).toHaveLength(1);
    const got = read(m);
    const weather = got.signatures.filter(s => s.tool === 'get_weather');
    expect(weather).toHaveLength(MAX_SIGNATURES_PER_TOOL);
    expect(weather[0]).toMatchObject({ signature: 'failure a', count: 2 });
    expect(got.other).toEqual([
      { service: 'shop', tool: 'get_weather', count: 6, errors: 6, refused: 0 },
    ]);
    expect(got.signatures.filter(s => s.tool === 'search')).toHaveLength(1);
  });

  it('lists the 20 most counted over the window, however many each minute kept', () => {
    const m = new FailureSignatureMinutes(bounds);
    for (let minute = 0; minute < 3; minute++)
      m.count(
        Array.from({ length: 15 }, (_, i) =>
          call(`failure ${'xyz'[minute]}${'abcdefghijklmnop'[i]}`),
        ),
        T0 + minute * MINUTE_MS,
      );
    m.count([call('failure za'), call('failure za')], T0 + 2 * MINUTE_MS);
    const got = read(m);
    expect(got.signatures).toHaveLength(MAX_SIGNATURES_PER_TOOL);
    expect(got.signatures[0]).toMatchObject({ signature: 'failure za', count: 3 });
    expect(got.other[0]!.count + got.signatures.reduce((n, s) => n + s.count, 0)).toBe(47);
  });

  it(`holds at most ${MAX_MINUTE_CHARS} characters of signatures a minute; new ones are then other`, () => {
    const m = new FailureSignatureMinutes({ maxServices: 50, maxToolsPerService: 50 });
    const long = (i: number) => `${'x'.repeat(MAX_SIGNATURE_CHARS)} ${i}`;
    const calls: CallOutcome[] = [];
    for (let tool = 0; tool < 40; tool++)
      for (let i = 0; i < 20; i++) calls.push(call(`${long(i)}`, { tool: `tool_${tool}` }));
    m.count(
      calls.map((c, i) => ({
        ...c,
        error: `${c.error!.slice(0, 50)}${'abcdefghijklmnopqrst'[i % 20]}`,
      })),
      T0,
    );
    const json = m.toJSON(T0);
    // Each tool's `other` entry comes on top of the bound: as many as there are tools (bounded).
    expect(json.length).toBeLessThan(MAX_MINUTE_CHARS + 40 * 400);
    const entries = parseSignatureMinute(json);
    expect(entries.some(e => e.signature === OTHER_SIGNATURE)).toBe(true);
    expect(entries.reduce((n, e) => n + e.errors, 0)).toBe(800);
  });

  it('bounds service and tool names as the per-tool counters do: past the bound, other', () => {
    const m = new FailureSignatureMinutes({ maxServices: 1, maxToolsPerService: 1 });
    m.count(
      [call(undefined, { outcome: 'ok', tool: 'first' }), call('boom', { tool: 'second' })],
      T0,
    );
    m.count([call('boom', { service: 'b' })], T0);
    expect(read(m).signatures.map(s => [s.service, s.tool, s.signature])).toEqual([
      ['other', 'get_weather', 'boom'],
      ['shop', 'other', 'boom'],
    ]);
  });

  it('takes back what a replaced pass counted (examples and times stay)', () => {
    const m = new FailureSignatureMinutes(bounds);
    m.count([call('boom 1'), call('boom 2', { outcome: 'refused' })], T0);
    m.count([call('boom 1', { traceId: 't2' })], T0 + 1);
    m.count([call('boom 1'), call('boom 2', { outcome: 'refused' })], T0, -1);
    expect(read(m).signatures).toEqual([
      expect.objectContaining({ signature: 'boom <n>', count: 1, errors: 1, refused: 0 }),
    ]);
    // A take-back into a minute no longer held is left out, unless asked for (the Redis store).
    m.count([call('boom 1')], T0 + 5 * MINUTE_MS, -1);
    expect(m.heldMinutes()).toEqual([T0]);
    const redis = new FailureSignatureMinutes(bounds, { takeBackUnheld: true });
    redis.count([call('boom 1')], T0, -1);
    expect([...redis.signatures(T0)]).toMatchObject([{ errors: -1, firstUnixMs: 0 }]);
    expect(
      summarizeFailures([{ minuteUnixMs: T0, signatures: redis.signatures(T0) }], 0, 1),
    ).toMatchObject({ signatures: [], other: [] });
  });

  it('drops minutes past keepMs, and its oldest minutes past maxHeldChars', () => {
    let now = T0;
    const m = new FailureSignatureMinutes(bounds, { keepMs: 10 * MINUTE_MS, now: () => now });
    m.count([call('boom')], T0);
    now = T0 + 11 * MINUTE_MS;
    m.count([call('boom')], now);
    expect(m.heldMinutes()).toEqual([now]);
    m.count([call('old')], T0);
    expect(m.heldMinutes()).toEqual([now]);

    const small = new FailureSignatureMinutes(bounds, { maxHeldChars: 1000 });
    for (let i = 0; i < 5; i++) small.count([call(`boom ${'x'.repeat(i)}`)], T0 + i * MINUTE_MS);
    expect(small.heldMinutes().length).toBeLessThan(5);
    expect(small.heldMinutes()).toContain(T0 + 4 * MINUTE_MS);
    const oldestHeld = Math.min(...small.heldMinutes());
    expect(small.droppedBeforeUnixMs).toBe(oldestHeld);
    const got = summarizeFailures(
      small.minutesIn(T0, T0 + 5 * MINUTE_MS),
      T0,
      T0 + 5 * MINUTE_MS,
      {},
      small.droppedBeforeUnixMs,
    );
    expect(got.heldSinceUnixMs).toBe(oldestHeld);
  });

  it('writes a minute as JSON and reads it back, skipping what is not an entry', () => {
    const m = new FailureSignatureMinutes(bounds);
    m.count([call('boom', { traceId: 'a' })], T0 + 3);
    const entries = parseSignatureMinute(m.toJSON(T0));
    expect(entries).toEqual([...m.signatures(T0)]);
    expect(parseSignatureMinute('not json')).toEqual([]);
    expect(parseSignatureMinute('{"a":1}')).toEqual([]);
    expect(
      parseSignatureMinute(
        JSON.stringify([
          ['s', 'v', 't', 'sig', 1, 0, 1, 2, ['a']],
          ['s', 'v', 't', 'sig', '1', 0, 1, 2, []],
          ['s', 'v', 't'],
          ['s', 'v', 't', 'sig', 1, 0, 1, 2, [1]],
          ['s', 'v', 't', 'sig', 1, 0, 1, 2, ['a', 'b', 'c', 'd', 'e']],
        ]),
      ).map(e => e.traceIds),
    ).toEqual([['a'], ['c', 'd', 'e']]);
  });
});
