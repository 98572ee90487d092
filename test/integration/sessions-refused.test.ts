import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EvaluationExporter } from '../../src/emit/otlp-evaluation-exporter.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import type { TraceListEntry } from '../../src/results/trace-list.js';
import { startLiveService } from '../helpers/live-service.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import { switchableExporter } from '../helpers/switchable-exporter.js';
import { waitFor } from '../helpers/redis.js';
import { SESSION_SUITE_YAML as SUITE, sessionTurn as turn } from '../helpers/session-turn.js';

/**
 * A turn refused at `sessions.maxBytes`, on both drivers through a live service (the bullmq one
 * on a real Redis): it is scored at once, alone, as the part of its session it would have opened
 * (cut `max_bytes`), and the session's next turn opens the part after it, which continues it.
 * The same traffic leaves the same stored records on both drivers, field by field.
 */

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

type SessionRecord = RunRecord & { parts?: number[] };

/** What a driver stored for the traffic below, its times and timing left out. */
async function storedFor(
  driver: 'memory' | 'bullmq',
  turns: ReadonlyArray<ReturnType<typeof turn>>,
) {
  const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-refused-'));
  writeFileSync(join(dir, 'support.yaml'), SUITE);
  const live = await startLiveService(
    driver,
    {
      'export.enabled': false,
      'toolHealth.enabled': false,
      // Nothing fits: every turn that would open a session or part is refused.
      'sessions.maxBytes': 1,
      'sessions.idleMs': 600_000,
      suites: [join(dir, 'support.yaml')],
    },
    closers,
  );
  const session = (part: number) =>
    live.get<SessionRecord>(`sessions/conv-r${part > 1 ? `?part=${part}` : ''}`);
  for (const [i, t] of turns.entries()) {
    await live.send(t);
    // Each turn's part is stored before the next turn is sent: the order is the traffic's.
    await waitFor(
      async () => (await session(i + 1)).status === 200,
      `${driver}: part ${i + 1} stored`,
      15_000,
    );
  }
  // A result's id is its store's cursor (a Redis stream's, the memory store's own): left out.
  const uncursored = <T extends RunRecord>(record: T): T => ({
    ...record,
    results: record.results.map(r => ({ ...r, id: 'cursor' })),
  });
  const parts = await Promise.all(
    turns.map(async (_, i) => uncursored((await session(i + 1)).body)),
  );
  const traces = await Promise.all(
    turns.map(async t => uncursored((await live.get<RunRecord>(`traces/${t.traceId}`)).body)),
  );
  const listed = (await live.get<{ sessions: TraceListEntry[] }>('sessions')).body.sessions;
  const open = (await live.get<{ sessions: unknown[] }>('sessions?state=open')).body.sessions;
  return untimed({ parts, traces, listed, open });
}

/** `value` with every time (a `…UnixMs` or `…At…` field) replaced by whether it was set. */
function untimed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(untimed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      /UnixMs$|At(Ms)?$|^timestamp$/.test(k) ? v != null : untimed(v),
    ]),
  );
}

describe('a turn refused at sessions.maxBytes', () => {
  it('is scored alone as the part it would have opened, on both drivers alike; the next turn opens the part after it', async () => {
    // The second turn carries no test case id: its part is scored by the one that opened the session.
    const turns = [
      turn('conv-r', ['lookup_order'], 0),
      turn('conv-r', ['verify_identity', 'issue_refund'], 60_000, {}, null),
    ];
    const bullmq = (await storedFor('bullmq', turns)) as {
      parts: SessionRecord[];
      traces: RunRecord[];
      open: unknown[];
    };
    const reason =
      'not held: the sessions held filled sessions.maxBytes (1 bytes) when this turn came: scored alone, as this part of its session; a later turn opens its next part';
    expect(bullmq.parts.map(p => [p.traceId, p.state, p.testCaseId, p.session])).toEqual([
      [
        'session:conv-r',
        'scored',
        'refund',
        {
          id: 'conv-r',
          part: 1,
          traceIds: [turns[0]!.traceId],
          cut: 'max_bytes',
          cutReason: reason,
          continues: null,
        },
      ],
      [
        'session~2:conv-r',
        'scored',
        'refund',
        {
          id: 'conv-r',
          part: 2,
          traceIds: [turns[1]!.traceId],
          cut: 'max_bytes',
          cutReason: reason,
          continues: 'max_bytes',
        },
      ],
    ]);
    // Each turn's own record says what happened to it, not that it waits for its session.
    expect(bullmq.traces.map(t => [t.traceId, t.reason])).toEqual([
      [turns[0]!.traceId, `a turn of session "conv-r", scored at once as part 1 of it: ${reason}`],
      [turns[1]!.traceId, `a turn of session "conv-r", scored at once as part 2 of it: ${reason}`],
    ]);
    expect(bullmq.open).toEqual([]);
    expect(await storedFor('memory', turns)).toEqual(bullmq);
  }, 60_000);

  it('bullmq: a pass alone whose export fails retries the trace job, which scores the same part again, never a later one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-refused-'));
    writeFileSync(join(dir, 'support.yaml'), SUITE);
    const backend = switchableExporter();
    let exports = 0;
    const exporter: EvaluationExporter = {
      ...backend.exporter,
      export: spans => {
        exports++;
        return backend.exporter.export(spans);
      },
    };
    const live = await startLiveService(
      'bullmq',
      {
        'export.logResults': false,
        'export.retryMaxBackoffMs': 200,
        'worker.backoffMs': 50,
        'toolHealth.enabled': false,
        'sessions.maxBytes': 1,
        'sessions.idleMs': 600_000,
        suites: [join(dir, 'support.yaml')],
      },
      closers,
      undefined,
      { exporter },
    );
    const session = (part: number) =>
      live.get<SessionRecord>(`sessions/conv-x${part > 1 ? `?part=${part}` : ''}`);
    const first = turn('conv-x', ['lookup_order'], 0);
    await live.send(first);
    // Its pass alone is stored, then its export fails, twice: the trace job is retried.
    await waitFor(() => exports >= 2, 'the export tried again', 15_000);
    backend.up();
    await waitFor(
      async () => (await session(1)).body.export?.state === 'exported',
      'part 1 exported on a retry',
      20_000,
    );
    expect(backend.written).toEqual(new Set([first.traceId]));
    expect((await session(1)).body.session).toMatchObject({
      part: 1,
      traceIds: [first.traceId],
      cut: 'max_bytes',
    });
    expect((await session(2)).status).toBe(404);
    // The retries marked nothing more: the session's next turn opens part 2, continuing part 1.
    const next = turn('conv-x', ['verify_identity', 'issue_refund'], 60_000);
    await live.send(next);
    await waitFor(async () => (await session(2)).status === 200, 'part 2 stored', 15_000);
    expect((await session(2)).body.session).toMatchObject({
      part: 2,
      traceIds: [next.traceId],
      continues: 'max_bytes',
    });
    expect((await session(3)).status).toBe(404);
    // Counted once, however often its job was tried.
    expect(
      await scrapeMetric(live.metrics, 'spanscore_sessions_refused_total', { reason: 'max_bytes' }),
    ).toBe(2);
  }, 60_000);
});
