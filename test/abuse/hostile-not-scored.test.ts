/**
 * Traces not scored are counted per minute by their reason, and a reason names what the trace
 * said: `test case "<id>" is in no suite`. Each trace of its own long unknown test case id added
 * a field of that length to its minute, kept for `results.retentionHours` (memory) or rewritten
 * to Redis with every flush of the minute (bullmq), and `/api/v1/summary` listed every one: 60
 * traces of 4,096-character ids made a 250 KB summary, and ids of a megabyte (a kilobyte of gzip
 * each) would hold a megabyte each in the memory driver's 192 MB heap for a day. Bounding them
 * to the first 50 reasons a process saw let those traces take the 50 for the process's life, so
 * that every later reason (no test case id: a misconfigured service) counted as "other".
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UNKNOWN_TEST_CASE_REASON } from '../../src/results/not-scored-field.js';
import { MAX_SHOWN_ID_CHARS } from '../../src/normalize/shown-text.js';
import { startLiveService, type LiveService } from '../helpers/live-service.js';
import { spanId, traceId, type SpanInput } from '../helpers/otlp-json-builder.js';
import { waitFor } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const SUITE = `
name: support
scorers: [tool_trajectory]
testCases:
  - id: refund
    expectedCalls: [issue_refund]
`;

/** Traces each of its own unknown test case id (more than the 50 reasons once kept apart). */
const TRACES = 60;
const ID_CHARS = 4096;

/** Trace `n`: one root span whose test case id is `ID_CHARS` long and its own. */
function unknownCaseTrace(n: number): SpanInput {
  return {
    traceId: traceId(0x7e57_0000 + n),
    spanId: spanId(0x7e57_0000 + n, 1),
    name: 'invoke_agent support',
    startMs: 0,
    endMs: 10,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'spanscore.test_case.id': `${n}-`.padEnd(ID_CHARS, 'x'),
    },
  };
}

type Summary = { notScored: Array<{ reason: string; count: number }> };

/** A live service scoring by {@link SUITE} alone. */
async function start(driver: 'memory' | 'bullmq'): Promise<LiveService> {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-not-scored-'));
  writeFileSync(join(dir, 'support.yaml'), SUITE);
  return startLiveService(
    driver,
    {
      'toolHealth.enabled': false,
      'export.enabled': false,
      'export.logResults': false,
      suites: [join(dir, 'support.yaml')],
    },
    closers,
  );
}

/** Bytes the values of every key under the service's prefix hold in Redis. */
async function redisBytes(s: LiveService): Promise<number> {
  const redis = s.redis!.commands;
  let bytes = 0;
  for (const key of await redis.keys(`${s.prefix}:*`)) {
    const type = await redis.type(key);
    if (type === 'string') bytes += await redis.strlen(key);
    if (type === 'hash')
      for (const value of Object.values(await redis.hgetall(key))) bytes += value.length;
  }
  return bytes;
}

describe.each(['memory', 'bullmq'] as const)('traces not scored (%s driver)', driver => {
  it('keep a bounded part of an unknown test case id and root span name', async () => {
    const s = await start(driver);
    const MB = 1024 * 1024;
    const trace = { ...unknownCaseTrace(0), name: 'n'.repeat(MB) };
    trace.attributes = { ...trace.attributes, 'spanscore.test_case.id': 'i'.repeat(MB) };
    await s.send({ spans: [trace] });
    const url = `${s.origin}/api/v1/traces/${trace.traceId}`;
    let record = '';
    await waitFor(
      async () => (record = await (await fetch(url)).text()).includes('"state":"not_scored"'),
      'the trace recorded as not scored',
      30_000,
    );
    const { testCaseId, reason } = JSON.parse(record) as { testCaseId: string; reason: string };
    expect(testCaseId).toBe(`${'i'.repeat(MAX_SHOWN_ID_CHARS - 1)}…`);
    expect(reason).toContain(`test case "${testCaseId}" is in no suite`);
    // Its record, its line in the trace list, and what was logged: the bound, not the megabytes.
    expect(record.length).toBeLessThan(4096);
    expect((await (await fetch(`${s.origin}/api/v1/traces`)).text()).length).toBeLessThan(4096);
    expect(s.lines.join('\n').length).toBeLessThan(16 * 1024);
    if (s.redis) expect(await redisBytes(s)).toBeLessThan(64 * 1024);
  }, 60_000);

  it('show a bounded part of a test case id on a child span, and of the root span name', async () => {
    // Tool health alone: the trace, with no tool call, is diagnosed and not scored.
    const s = await startLiveService(
      driver,
      { 'export.enabled': false, 'export.logResults': false },
      closers,
    );
    const MB = 1024 * 1024;
    const root = { ...unknownCaseTrace(1), name: 'n'.repeat(MB), attributes: {} };
    const child: SpanInput = {
      ...root,
      spanId: spanId(0x7e57_0001, 2),
      parentSpanId: root.spanId,
      name: 'chat',
      attributes: { 'gen_ai.operation.name': 'chat', 'spanscore.test_case.id': 'i'.repeat(MB) },
    };
    await s.send({ spans: [root, child] });
    const url = `${s.origin}/api/v1/traces/${root.traceId}`;
    let record = '';
    await waitFor(
      async () => (record = await (await fetch(url)).text()).includes('"state":"not_scored"'),
      'the trace recorded as not scored',
      30_000,
    );
    const { diagnostics } = JSON.parse(record) as {
      diagnostics: Array<{ code: string; message: string }>;
    };
    const shown = (c: string) => `${c.repeat(MAX_SHOWN_ID_CHARS - 1)}…`;
    expect(diagnostics.find(d => d.code === 'test_case_id_not_on_root')?.message).toContain(
      `the test case id "${shown('i')}" is on a child span, not on the root span "${shown('n')}"`,
    );
    expect(record.length).toBeLessThan(4096);
    if (s.redis) expect(await redisBytes(s)).toBeLessThan(64 * 1024);
  }, 60_000);

  it('are counted under one reason for every unknown test case id, apart from other reasons', async () => {
    const s = await start(driver);
    await s.send({ spans: Array.from({ length: TRACES }, (_, n) => unknownCaseTrace(n)) });
    const countOf = (summary: Summary) => summary.notScored.reduce((n, r) => n + r.count, 0);
    await waitFor(
      async () =>
        countOf((await (await fetch(`${s.origin}/api/v1/summary?window=1h`)).json()) as Summary) ===
        TRACES,
      'every trace counted as not scored',
      30_000,
    );
    // Then a trace with no test case id: the reason a misconfigured service shows.
    const noId = {
      ...unknownCaseTrace(TRACES),
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    };
    await s.send({ spans: [noId] });
    let summary: Summary | undefined;
    let text = '';
    await waitFor(
      async () => {
        text = await (await fetch(`${s.origin}/api/v1/summary?window=1h`)).text();
        summary = JSON.parse(text) as Summary;
        return countOf(summary) === TRACES + 1;
      },
      'the trace with no id counted as not scored',
      30_000,
    );
    expect(summary!.notScored).toEqual(
      expect.arrayContaining([
        { reason: UNKNOWN_TEST_CASE_REASON, count: TRACES },
        { reason: 'no test case id attribute', count: 1 },
      ]),
    );
    expect(summary!.notScored).toHaveLength(2);
    expect(text).not.toContain('xxxx');
    if (!s.redis) return;
    // What the minute's hash holds in Redis, every writer's counts (the records hold each id).
    let bytes = 0;
    for (const key of await s.redis.commands.keys(`${s.prefix}:results:{r}:m:*`))
      for (const json of Object.values(await s.redis.commands.hgetall(key))) bytes += json.length;
    expect(bytes).toBeLessThan(1024);
  }, 60_000);
});
