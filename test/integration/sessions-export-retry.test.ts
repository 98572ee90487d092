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
 * retried by age (`export.retryMaxAgeMs`) until the backend answers, as a trace's export is, and
 * recorded once (a recording sink after the built-in ones counts each pass it is given), however
 * many tries the export takes. The backend fails its first two calls that carry the session's
 * spans; the export breaker lets one call a second through meanwhile and refuses the others at
 * once, so the outage outlasts `worker.attempts` tries and their backoff (5, 20 ms doubling:
 * 300 ms), well within `export.retryMaxAgeMs`. Before, a bullmq session job retried its export by
 * count (`worker.attempts`), refused at once by the breaker each time, and gave the session's
 * evaluation spans up within a second of the outage; and earlier still every try scored the part
 * again with every recording sink (the pass counted once a try).
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
    it('is exported once the backend answers, recorded once, however many tries its export takes', async () => {
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
      await waitFor(
        () => backend.state.sessionSpansExported > 0,
        "the session pass's evaluation spans exported once the backend answers",
        20_000,
      );
      // Two calls failed, the third delivered: each a probe of the breaker, a second apart.
      expect(backend.state.sessionTries).toBe(3);
      await waitFor(
        async () =>
          (await live.get<RunRecord>('sessions/conv-r')).body.export?.state === 'exported',
        'the record says exported',
        10_000,
      );
      expect(live.lines.filter(l => l.includes('gave up exporting'))).toEqual([]);
      expect(recorded.get('conv-r')).toBe(1);
      expect((await live.get<RunRecord>('sessions/conv-r')).body.state).toBe('scored');
    }, 60_000);
  },
);
