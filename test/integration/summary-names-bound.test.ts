/**
 * The summary's counters name services and agents that traces choose: how many distinct ones a
 * minute holds, on the real service and Redis (bullmq driver).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { otlpRequest, type SpanInput } from '../helpers/otlp-json-builder.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { serviceTraceSpans } from '../helpers/service-trace.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const SEP = '\u001f';

describe('the per-minute result counters (bullmq driver)', () => {
  it('keep services and agents apart up to the bounds, and count the rest as other', async () => {
    const TRACES = 40;
    const s = await startLiveService(
      'bullmq',
      { 'metrics.maxServices': 3, 'toolHealth.maxToolsPerService': 2 },
      closers,
    );
    // Each trace its own service and agent, every one scored by tool health.
    const spans: SpanInput[] = [];
    for (let i = 0; i < TRACES; i++)
      for (const span of serviceTraceSpans({
        service: `service-${i}`,
        calls: [{ name: 'get_weather', args: { city: 'Lisbon' } }],
      }).spans)
        spans.push({
          ...span,
          attributes: { ...span.attributes, 'gen_ai.agent.name': `agent-${i}` },
        });
    const response = await fetch(`${s.origin}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(otlpRequest(spans)),
    });
    expect(response.status).toBe(200);
    type Summary = {
      total: { count: number };
      byScorer: unknown[];
      byService: Array<{ serviceName: string; count: number }>;
      byAgent: Array<{ agent: string; count: number }>;
    };
    let summary: Summary | undefined;
    await waitFor(
      async () => {
        summary = (await s.get<Summary>('summary?window=1h')).body;
        // Tool health scores each trace once per scorer.
        return summary.total.count > 0 && summary.total.count === TRACES * summary.byScorer.length;
      },
      'every trace counted',
      30_000,
    );

    // In Redis: the minute's fields name 3 services and `other`, and at most 2 agents of each.
    const redis = s.redis!.commands;
    const services = new Set<string>();
    const agents = new Set<string>();
    for (const key of await redis.keys(`${s.prefix}:results:{r}:m:*`))
      for (const json of Object.values(await redis.hgetall(key)))
        for (const field of Object.keys(JSON.parse(json) as Record<string, number>)) {
          const [kind, group] = field.split(SEP);
          if (kind === 'r') services.add((JSON.parse(group!) as string[])[4]!);
          if (kind === 'a') {
            const [, , service, agent] = JSON.parse(group!) as string[];
            agents.add(`${service}/${agent}`);
          }
        }
    // (The first three scored keep their names: traces of one request are scored in any order.)
    expect(services.size).toBe(4);
    expect(services.has('other')).toBe(true);
    expect(agents.size).toBeLessThanOrEqual(4 * 2);

    // The API counts every result, the rest under `other`.
    const perTrace = summary!.byScorer.length;
    const byService = new Map(summary!.byService.map(g => [g.serviceName, g.count]));
    expect(byService.size).toBe(4);
    expect(byService.get('other')).toBe((TRACES - 3) * perTrace);
    expect([...byService.values()].filter(n => n === perTrace)).toHaveLength(3);
    expect(summary!.byAgent.reduce((n, g) => n + g.count, 0)).toBe(TRACES * perTrace);
    expect(summary!.byAgent.length).toBeLessThanOrEqual(4 * 2);
  });
});
