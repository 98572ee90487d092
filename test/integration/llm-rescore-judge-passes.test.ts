import { afterEach, describe, expect, it } from 'vitest';
import { MAX_JUDGE_PASSES_PER_TRACE } from '../../src/queue/rescore-judge-passes.js';
import { whenReady } from '../../src/redis/redis-connection.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { bufferKeyOf } from '../../src/redis/redis-span-buffer.js';
import {
  startOpenAiCompatibleServer,
  verdictPerCall,
} from '../helpers/openai-compatible-server.js';
import { harness } from '../helpers/llm-worker-harness.js';
import { otlpRequest, spanId, traceId } from '../helpers/otlp-json-builder.js';
import { redisFor, testPrefix, waitFor } from '../helpers/redis.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** Late batches sent after the trace was scored, each one more `weather` call (a new prompt). */
const LATE_BATCHES = 5;

describe.each(['memory', 'bullmq'] as const)('%s driver', driver => {
  it(`late batches of one trace rescore it each time, but only ${MAX_JUDGE_PASSES_PER_TRACE} passes ask the judge: later rescores run the deterministic scorers and say the judge pass was skipped`, async () => {
    const server = await startOpenAiCompatibleServer([verdictPerCall]);
    closers.push(() => server.close());
    const prefix = testPrefix();
    const h = await harness(closers, [], {}, prefix, server, driver, {
      'assembly.rescoreLateSpans': true,
    });
    const t = 40;
    const appropriateness = () => h.spansFor(t, 'tool_call_appropriateness');
    expect(await h.send(t)).toBe(200);
    await waitFor(() => appropriateness().length === 1, 'the first judged span');
    for (let i = 1; i <= LATE_BATCHES; i++) {
      const late = otlpRequest([
        {
          traceId: traceId(t),
          spanId: spanId(t, 10 + i),
          parentSpanId: spanId(t, 1),
          name: 'execute_tool weather',
          startMs: 5 + i,
          endMs: 6 + i,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': 'weather',
            'gen_ai.tool.call.arguments': JSON.stringify({ city: `City ${i}` }),
          },
        },
      ]);
      const response = await fetch(h.service.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(late),
      });
      expect(response.status).toBe(200);
      // Each rescore ends with one tool_call_appropriateness span: judged, or skipped.
      await waitFor(() => appropriateness().length === 1 + i, `the rescore of late batch ${i}`);
    }
    const accuracy = h.spansFor(t, 'tool_call_accuracy');
    expect(accuracy).toHaveLength(1 + LATE_BATCHES);
    // One judge call per judged pass, each prompt one call longer: 3 requests, not 6.
    expect(server.requests).toHaveLength(MAX_JUDGE_PASSES_PER_TRACE);
    const statuses = appropriateness().map(s => s.attributes['spanscore.evaluation.status']);
    expect(statuses).toEqual([
      ...Array<string>(MAX_JUDGE_PASSES_PER_TRACE).fill('scored'),
      ...Array<string>(1 + LATE_BATCHES - MAX_JUDGE_PASSES_PER_TRACE).fill('skipped'),
    ]);
    // The skip says which verdict stands: the last judge pass's (the second rescore's, over the
    // first call and two late ones), carried from one rescore past the cap to the next.
    const skipped = `judge pass skipped: this is rescore ${LATE_BATCHES} of the trace after late spans (assembly.rescoreLateSpans), and a trace gets at most ${MAX_JUDGE_PASSES_PER_TRACE} judge passes (its first scoring and ${MAX_JUDGE_PASSES_PER_TRACE - 1} rescores); its deterministic scorers ran with every span; the verdict that stands: its last judge pass's (in the trace's evaluation spans): tool_call_appropriateness pass (score 1) over ${MAX_JUDGE_PASSES_PER_TRACE} tool calls`;
    expect(appropriateness().at(-1)!.attributes['gen_ai.evaluation.explanation']).toBe(skipped);
    const record = (await (
      await fetch(h.service.url!.replace('/v1/traces', `/api/v1/traces/${traceId(t)}`))
    ).json()) as RunRecord;
    expect(record.results.map(r => [r.scorer, r.status, r.reason])).toEqual([
      ['tool_call_accuracy', 'scored', expect.any(String)],
      ['tool_call_appropriateness', 'skipped', skipped],
    ]);
    if (driver === 'bullmq') {
      // The count lives in the trace's hash, under its TTL.
      const connections = redisFor(prefix);
      closers.push(connections.cleanup);
      const redis = connections.commands;
      await whenReady(redis);
      const key = bufferKeyOf(prefix, traceId(t));
      expect(await redis.hget(key, 'rs')).toBe(String(LATE_BATCHES));
      expect(await redis.pttl(key)).toBeGreaterThan(0);
    }
  });
});
