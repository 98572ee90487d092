import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EvaluationExporter } from '../../src/emit/otlp-evaluation-exporter.js';
import { SpanscoreError } from '../../src/errors/spanscore-error.js';
import type { RunRecord } from '../../src/results/stored-result.js';
import { startLiveService } from '../helpers/live-service.js';
import { waitFor } from '../helpers/redis.js';
import {
  SESSION_SUITE_YAML as SUITE,
  sessionPassCounter,
  sessionTurn as turn,
} from '../helpers/session-turn.js';

/**
 * A session pass whose evaluation-span export fails, through a live service on each driver, is
 * recorded once (a recording sink after the built-in ones counts each pass it is given), however
 * many tries the export takes: on memory until the backend answers (by age,
 * `export.retryMaxAgeMs`); on bullmq until the session job's attempts are used up (by count). Before, every try scored the
 * part again with every recording sink: the results store, metrics and results file counted the
 * pass once a try (3 here), where a trace's export retry goes to the delivering sinks only.
 */
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

/** An exporter whose first `failures` calls that carry a session's result fail as a down backend's. */
function failingForSessions(failures: number) {
  const state = { sessionTries: 0, sessionSpansExported: 0 };
  const exporter: EvaluationExporter = {
    export: spans => {
      const session = spans.filter(s => s.attributes['spanscore.session.id'] !== undefined);
      if (session.length === 0) return Promise.resolve();
      state.sessionTries++;
      if (state.sessionTries <= failures)
        return Promise.reject(new SpanscoreError('SS_EXPORT_FAILED', 'backend down'));
      state.sessionSpansExported += session.length;
      return Promise.resolve();
    },
    shutdown: () => Promise.resolve(),
  };
  return { exporter, state };
}

describe.each(['memory', 'bullmq'] as const)(
  'a session pass retried for its export (%s driver)',
  driver => {
    it('is recorded once, however many tries its export takes', async () => {
      const { sink, passes: recorded } = sessionPassCounter();
      const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-export-retry-'));
      writeFileSync(join(dir, 'support.yaml'), SUITE);
      const backend = failingForSessions(2);
      const live = await startLiveService(
        driver,
        {
          'toolHealth.enabled': false,
          'sessions.idleMs': 300,
          'worker.attempts': 5,
          'worker.backoffMs': 20,
          'export.retryMaxAgeMs': 30_000,
          'export.retryMaxBackoffMs': 50,
          'export.logResults': false,
          suites: [join(dir, 'support.yaml')],
        },
        closers,
        undefined,
        { exporter: backend.exporter, sinks: [sink] },
      );
      await live.send(turn('conv-r', ['lookup_order'], 0));
      const tries = () =>
        live.lines.filter(l => l.startsWith('spanscore: session conv-r (part 1) attempt')).length;
      if (driver === 'memory') {
        // Its export retried until the backend answers (export.retryMaxAgeMs).
        await waitFor(
          () => backend.state.sessionSpansExported > 0,
          'the session pass exported',
          20_000,
        );
        expect(backend.state.sessionTries).toBe(3);
        await waitFor(
          async () =>
            (await live.get<RunRecord>('sessions/conv-r')).body.export?.state === 'exported',
          'the record says exported',
          10_000,
        );
      } else {
        // The session job's tries, by count (worker.attempts), until it gives the export up.
        await waitFor(
          () =>
            live.lines.some(l =>
              l.includes('gave up exporting the evaluation spans of session "conv-r"'),
            ),
          'the export given up',
          30_000,
        );
      }
      if (driver === 'bullmq') expect(tries()).toBeGreaterThanOrEqual(2);
      expect(recorded.get('conv-r')).toBe(1);
      expect((await live.get<RunRecord>('sessions/conv-r')).body.state).toBe('scored');
    }, 60_000);
  },
);
