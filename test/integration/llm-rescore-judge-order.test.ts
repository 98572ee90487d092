import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/results/stored-result.js';
import {
  startOpenAiCompatibleServer,
  verdictPerCall,
} from '../helpers/openai-compatible-server.js';
import { harness } from '../helpers/llm-worker-harness.js';
import { otlpRequest, spanId, traceId } from '../helpers/otlp-json-builder.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import { waitFor } from '../helpers/redis.js';

/**
 * A trace rescored for late spans (`assembly.rescoreLateSpans`) gets a judge pass per scoring
 * (within `MAX_JUDGE_PASSES_PER_TRACE`); a judge pass can end after a newer scoring of its trace
 * (a slow or retried judge call). It appended its verdict over the older span set to the newer
 * record and replaced the record's calls with its own (fewer): the record's latest verdict was over
 * fewer spans than its deterministic results. The newest pass wins: a judge pass a newer one
 * supersedes is not asked (if it has not started) or not written (if it has).
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** Late batch `i` of trace `t`: one more `weather` call (a new prompt for the judge). */
const lateBatch = (t: number, i: number) =>
  otlpRequest([
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

describe.each(['memory', 'bullmq'] as const)('%s driver', driver => {
  it('a judge pass that ends after newer rescores is not written, one not started is not asked: the record holds the newest verdict, over every call', async () => {
    let release!: () => void;
    const held = new Promise<void>(resolve => (release = resolve));
    let calls = 0;
    // The first scoring's judge call is answered once the test lets it; the others at once.
    const server = await startOpenAiCompatibleServer([
      async request => {
        if (++calls === 1) await held;
        return verdictPerCall(request);
      },
    ]);
    closers.push(() => server.close());
    // One judge pass at a time: the first rescore's pass waits behind the held one.
    const h = await harness(closers, [], { concurrency: 1 }, undefined, server, driver, {
      'assembly.rescoreLateSpans': true,
    });
    const t = 41;
    const origin = new URL(h.service.url!).origin;
    const accuracy = () => h.spansFor(t, 'tool_call_accuracy');
    const appropriateness = () => h.spansFor(t, 'tool_call_appropriateness');
    expect(await h.send(t)).toBe(200);
    await waitFor(() => server.requests.length === 1, "the first scoring's judge call");
    for (const i of [1, 2]) {
      const response = await fetch(h.service.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(lateBatch(t, i)),
      });
      expect(response.status).toBe(200);
      await waitFor(() => accuracy().length === 1 + i, `the deterministic pass of rescore ${i}`);
    }
    release();
    const judgeIdle = async () => {
      const metrics = `${origin}/metrics`;
      if (driver === 'bullmq')
        return (await scrapeMetric(metrics, 'spanscore_jobs', { state: 'judge_completed' })) === 3;
      const active = await scrapeMetric(metrics, 'spanscore_jobs', { state: 'judge_active' });
      const waiting = await scrapeMetric(metrics, 'spanscore_jobs', { state: 'judge_waiting' });
      return server.requests.length >= 2 && active === 0 && waiting === 0;
    };
    await waitFor(judgeIdle, 'the three judge passes to end');
    // The first scoring's pass was asked (before any rescore) but not written; the first
    // rescore's was not asked; the second rescore's was: 2 calls, 1 verdict (3 and 3 before).
    expect(server.requests).toHaveLength(2);
    expect(appropriateness()).toHaveLength(1);
    const record = (await (
      await fetch(`${origin}/api/v1/traces/${traceId(t)}`)
    ).json()) as RunRecord;
    expect(record.toolCalls).toHaveLength(3);
    expect(record.results.map(r => [r.scorer, r.phase, r.toolSequence.length])).toEqual([
      ['tool_call_accuracy', 'deterministic', 3],
      ['tool_call_appropriateness', 'llm', 3],
    ]);
  });

  it('the last judge pass, ending after a rescore past the cap, adds its verdict but leaves the newer record as it is', async () => {
    let release!: () => void;
    const held = new Promise<void>(resolve => (release = resolve));
    let calls = 0;
    // The last judge pass (the second rescore's) is answered once the test lets it.
    const server = await startOpenAiCompatibleServer([
      async request => {
        if (++calls === 3) await held;
        return verdictPerCall(request);
      },
    ]);
    closers.push(() => server.close());
    const h = await harness(closers, [], {}, undefined, server, driver, {
      'assembly.rescoreLateSpans': true,
    });
    const t = 42;
    const origin = new URL(h.service.url!).origin;
    const accuracy = () => h.spansFor(t, 'tool_call_accuracy');
    const appropriateness = () => h.spansFor(t, 'tool_call_appropriateness');
    expect(await h.send(t)).toBe(200);
    await waitFor(() => appropriateness().length === 1, 'the first verdict');
    for (const i of [1, 2, 3]) {
      const response = await fetch(h.service.url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(lateBatch(t, i)),
      });
      expect(response.status).toBe(200);
      await waitFor(() => accuracy().length === 1 + i, `the deterministic pass of rescore ${i}`);
      if (i === 1) await waitFor(() => appropriateness().length === 2, 'the second verdict');
      if (i === 2) await waitFor(() => server.requests.length === 3, 'the last judge call');
    }
    // The third rescore, past the cap: its LLM scorer skipped.
    await waitFor(() => appropriateness().length === 3, "the third rescore's skipped result");
    release();
    await waitFor(() => appropriateness().length === 4, 'the last verdict');
    expect(server.requests).toHaveLength(3);
    const record = (await (
      await fetch(`${origin}/api/v1/traces/${traceId(t)}`)
    ).json()) as RunRecord;
    // The record is the third rescore's (4 calls), not the judge pass's (3 calls; 3 before).
    expect(record.toolCalls).toHaveLength(4);
    expect(record.results.map(r => [r.scorer, r.phase, r.status, r.toolSequence.length])).toEqual([
      ['tool_call_accuracy', 'deterministic', 'scored', 4],
      ['tool_call_appropriateness', 'deterministic', 'skipped', 4],
      ['tool_call_appropriateness', 'llm', 'scored', 3],
    ]);
    // The skip, written while the last judge pass was under way, says its verdict is to come.
    expect(record.results[1]!.reason).toMatch(
      /; the verdict that stands: none recorded yet \(its last judge pass may still be under way: its verdict is added to the trace's results when it ends\)$/,
    );
  });
});
