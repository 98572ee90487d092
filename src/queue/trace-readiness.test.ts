import { describe, expect, it } from 'vitest';
import { decodeOtlpJson } from '../ingest/decode-otlp-json.js';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { isRootSpan } from '../normalize/trace-root.js';
import { traceReadiness } from './trace-readiness.js';

const policy = { settleMs: 2000, maxWaitMs: 30_000, logsWaitMs: 5000 };

describe('traceReadiness', () => {
  it.each([
    [
      'root ended, quiet for settleMs → settled',
      { firstSeenMs: 0, lastSeenMs: 1000, rootEnded: true },
      3000,
      { ready: true, reason: 'settled' },
    ],
    [
      'root ended, a span just arrived → recheck when quiet',
      { firstSeenMs: 0, lastSeenMs: 2500, rootEnded: true },
      3000,
      { ready: false, recheckAtMs: 4500 },
    ],
    [
      'no root yet → wait for it until maxWait',
      { firstSeenMs: 0, lastSeenMs: 100, rootEnded: false },
      5000,
      { ready: false, recheckAtMs: 30_000 },
    ],
    [
      'no root, maxWait passed → scored anyway',
      { firstSeenMs: 0, lastSeenMs: 29_000, rootEnded: false },
      30_000,
      { ready: true, reason: 'max_wait' },
    ],
    [
      'spans keep arriving past maxWait → scored at maxWait',
      { firstSeenMs: 0, lastSeenMs: 29_900, rootEnded: true },
      30_000,
      { ready: true, reason: 'max_wait' },
    ],
    [
      'root ended, a span just arrived, log records awaited → recheck when quiet',
      { firstSeenMs: 0, lastSeenMs: 2500, rootEnded: true, awaitingLogs: true },
      3000,
      { ready: false, recheckAtMs: 4500 },
    ],
    [
      'root ended and quiet, log records awaited → recheck settleMs later',
      { firstSeenMs: 0, lastSeenMs: 1000, rootEnded: true, awaitingLogs: true },
      3000,
      { ready: false, recheckAtMs: 5000 },
    ],
    [
      'log records awaited, the last recheck before the wait ends → at its end',
      { firstSeenMs: 0, lastSeenMs: 1000, rootEnded: true, awaitingLogs: true },
      7000,
      { ready: false, recheckAtMs: 8000 },
    ],
    [
      'log records awaited, the wait over → settled',
      { firstSeenMs: 0, lastSeenMs: 1000, rootEnded: true, awaitingLogs: true },
      8000,
      { ready: true, reason: 'settled' },
    ],
    [
      'log records awaited past maxWait → scored at maxWait',
      { firstSeenMs: 0, lastSeenMs: 27_000, rootEnded: true, awaitingLogs: true },
      30_000,
      { ready: true, reason: 'max_wait' },
    ],
    [
      'settle would end after maxWait → recheck at maxWait',
      { firstSeenMs: 0, lastSeenMs: 29_000, rootEnded: true },
      29_500,
      { ready: false, recheckAtMs: 30_000 },
    ],
  ])('%s', (_name, progress, now, expected) => {
    expect(traceReadiness(progress, now, policy)).toEqual(expected);
  });
});

describe('isRootSpan', () => {
  const T = traceId(5);
  const spans = decodeOtlpJson(
    otlpRequest([
      { traceId: T, spanId: spanId(5, 1), name: 'root', startMs: 0, endMs: 9 },
      {
        traceId: T,
        spanId: spanId(5, 2),
        parentSpanId: spanId(5, 1),
        name: 'child',
        startMs: 1,
        endMs: 2,
      },
      {
        traceId: T,
        spanId: spanId(5, 3),
        parentSpanId: 'cccccccccccccccc',
        name: 'remote entry',
        kind: 2,
        startMs: 1,
        endMs: 2,
      },
      {
        traceId: T,
        spanId: spanId(5, 4),
        parentSpanId: 'dddddddddddddddd',
        name: 'orphan internal',
        kind: 1,
        startMs: 1,
        endMs: 2,
      },
    ]),
  ).spans;
  const known = new Set(spans.map(s => s.spanId));
  it('a parentless span, or a SERVER/CONSUMER span whose parent is in another process', () => {
    expect(spans.map(s => isRootSpan(s, known))).toEqual([true, false, true, false]);
  });
});
