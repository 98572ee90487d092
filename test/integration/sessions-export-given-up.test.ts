import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import { scrapeMetric } from '../helpers/scrape-metric.js';
import {
  SESSION_SUITE_YAML as SUITE,
  sessionPassCounter,
  sessionTurn as turn,
} from '../helpers/session-turn.js';
import { switchableExporter } from '../helpers/switchable-exporter.js';

/**
 * A held session whose pass's export is given up on (the trace backend down past
 * `export.retryMaxAgeMs`), through a live memory service: its results are stored and its record's
 * export says it failed, and it leaves the export backlog; the part stays held, waiting for nothing, and is not scored again for
 * it, neither when its session is let go nor at shutdown (each pass counted by a sink after the
 * built-in ones).
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

describe('a session pass whose export is given up on (memory driver)', () => {
  it('is not scored again when its session is let go or at shutdown', async () => {
    const { sink, passes } = sessionPassCounter();
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-export-'));
    writeFileSync(join(dir, 'support.yaml'), SUITE);
    const backend = switchableExporter();
    const live = await startLiveService(
      'memory',
      {
        'toolHealth.enabled': false,
        'sessions.idleMs': 300,
        'sessions.maxOpen': 1,
        'worker.attempts': 2,
        'worker.backoffMs': 10,
        'export.retryMaxAgeMs': 200,
        'export.retryMaxBackoffMs': 50,
        'export.logResults': false,
        suites: [join(dir, 'support.yaml')],
      },
      closers,
      undefined,
      { exporter: backend.exporter, sinks: [sink] },
    );
    const session = (id: string) => live.get<RunRecord>(`sessions/${id}`);
    await live.send(turn('conv-x', ['lookup_order'], 0));
    await waitFor(
      () => live.lines.some(l => l.includes('gave up exporting the evaluation spans of session')),
      'the export of conv-x given up',
      15_000,
    );
    const tried = passes.get('conv-x')!;
    expect(tried).toBeGreaterThan(0);
    const record = (await session('conv-x')).body;
    expect(record.state).toBe('scored');
    expect(record.export?.state).toBe('failed');
    // Out of the export backlog, as a trace given up on (before: 1 waiting, for 7 days).
    expect(await scrapeMetric(live.metrics, 'spanscore_exports_waiting')).toBe(0);
    // Still held (its results stand: not ended as a failed pass), waiting for nothing.
    const open = await live.get<{ sessions: Array<{ sessionId: string }> }>('sessions?state=open');
    expect(open.body.sessions.map(s => s.sessionId)).toEqual(['conv-x']);
    // conv-y lets conv-x go (sessions.maxOpen 1): conv-x waits for nothing.
    await live.send(turn('conv-y', ['lookup_order'], 0));
    await waitFor(() => (passes.get('conv-y') ?? 0) > 0, 'conv-y scored', 15_000);
    // Shutdown scores what waits: conv-x does not.
    await closers.pop()!();
    expect(passes.get('conv-x')).toBe(tried);
  }, 60_000);
});
