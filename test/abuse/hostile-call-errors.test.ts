/**
 * A run record keeps each tool call's error as its trace recorded it (a tool span's status
 * message, an error result): one trace of 50 failing calls, each with a 100,000-character error
 * (a few kilobytes of gzip), made a 5 MB record, kept for the retention in the memory driver's
 * 192 MB heap or in Redis, and sent whole by `/api/v1/traces/<id>`; a record keeps 200 calls.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_CONTENT_CHARS, type RunRecord } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { spanId, traceId, type SpanInput } from '../helpers/otlp-json-builder.js';
import { waitFor } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const CALLS = 50;
const ERROR_CHARS = 100_000;

/** A root and `CALLS` failed `execute_tool` spans, each failed with its own long error. */
function failingCalls(n: number): SpanInput[] {
  const t = traceId(n);
  const spans: SpanInput[] = [
    { traceId: t, spanId: spanId(n, 1), name: 'invoke_agent', startMs: 0, endMs: 100 },
  ];
  for (let i = 0; i < CALLS; i++)
    spans.push({
      traceId: t,
      spanId: spanId(n, i + 2),
      parentSpanId: spanId(n, 1),
      name: 'execute_tool',
      startMs: 1,
      endMs: 2,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': `tool_${i}`,
        'gen_ai.tool.call.id': `c${i}`,
      },
      status: { code: 2, message: `e${i}:`.padEnd(ERROR_CHARS, 'e') },
    });
  return spans;
}

describe.each(['memory', 'bullmq'] as const)('errors of failed tool calls (%s driver)', driver => {
  it('are kept cut on the run record', async () => {
    const s = await startLiveService(
      driver,
      { 'export.enabled': false, 'export.logResults': false },
      closers,
    );
    const spans = failingCalls(0xe770);
    await s.send({ spans });
    const url = `${s.origin}/api/v1/traces/${spans[0]!.traceId}`;
    let text = '';
    await waitFor(
      async () => (text = await (await fetch(url)).text()).includes('"state":"scored"'),
      'the trace scored',
      30_000,
    );
    const record = JSON.parse(text) as RunRecord;
    expect(record.toolCalls).toHaveLength(CALLS);
    for (const [i, call] of record.toolCalls.entries()) {
      expect(call.error).toHaveLength(MAX_CONTENT_CHARS + 1);
      expect(call.error).toBe(`${`e${i}:`.padEnd(MAX_CONTENT_CHARS, 'e')}…`);
    }
    // The record: its calls' errors at the bound, not 5 MB of them.
    expect(text.length).toBeLessThan(CALLS * (MAX_CONTENT_CHARS + 400) + 16 * 1024);
    if (!s.redis) return;
    let bytes = 0;
    for (const key of await s.redis.commands.keys(`${s.prefix}:*`))
      if ((await s.redis.commands.type(key)) === 'string')
        bytes += await s.redis.commands.strlen(key);
    expect(bytes).toBeLessThan(CALLS * (MAX_CONTENT_CHARS + 400) + 64 * 1024);
  }, 60_000);
});
