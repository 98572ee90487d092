import type { Config } from '../config/config-schema.js';
import { rateLimitedLog } from '../log/rate-limited-log.js';
import { isExportGiveUp } from '../queue/export-retry.js';
import type { DriverEvents, QueueDriver } from '../queue/queue-driver.js';
import type { ServiceMetrics } from './service-metrics.js';

/**
 * What the service does when its queue driver reports: counts it in `metrics`, says it in `log`
 * (a kind of warning at most once a minute), and records in the driver's results store what ended
 * a trace (expired, failed, its export given up). `driverOf` is the driver these events come
 * from, read when an event comes (the events are made before it).
 */
export function driverEvents(
  config: Readonly<Config>,
  metrics: ServiceMetrics,
  log: (line: string) => void,
  driverOf: () => QueueDriver,
): DriverEvents {
  const warnOnce = rateLimitedLog(log);
  return {
    log,
    onAdmissionRefused(reason, message) {
      metrics.admissionRefusals.inc({ reason });
      warnOnce(
        `refused:${reason}`,
        () => `spanscore: refusing traces (503/429, Retry-After): ${message}`,
      );
    },
    onTraceExpired(traceId, reason) {
      // A job also finds nothing of a trace another job scored long ago: its run record says so.
      void driverOf()
        .results.run(traceId)
        .then(async record => {
          if (record && record.state !== 'pending') return;
          metrics.tracesExpired.inc();
          warnOnce('expired', () => `spanscore: trace ${traceId} expired unscored: ${reason}`);
          if (config.results.write) await driverOf().results.recordExpired(traceId, reason);
        })
        .catch((e: unknown) => log(`spanscore: results store: ${(e as Error).message}`));
    },
    onSessionEvicted() {
      metrics.sessionsEvicted.inc();
    },
    // The drivers say it in the log, at most once a minute.
    onSessionRefused(_sessionId, _traceId, reason) {
      metrics.sessionsRefused.inc({ reason });
    },
    onSessionTurnDropped(_sessionId, _traceId, reason) {
      metrics.sessionTurnsDropped.inc({ reason });
    },
    onSessionFailed() {
      metrics.sessionFailures.inc();
    },
    onLateSpans(traceId, count) {
      metrics.lateSpans.inc(count);
      log(
        `spanscore: ${count} late span(s) for trace ${traceId}${config.assembly.rescoreLateSpans ? ': rescoring' : ''}`,
      );
    },
    onTraceFailed(traceId, phase, error) {
      metrics.traceFailures.inc();
      const exportGaveUp = isExportGiveUp(error);
      log(
        exportGaveUp
          ? `spanscore: gave up exporting the evaluation spans of trace ${traceId} (its results are stored): ${(error as Error).message}`
          : `spanscore: could not score trace ${traceId}${phase === 'llm' ? ' (LLM scorers)' : ''}: ${(error as Error).message}`,
      );
      // Given up: the trace leaves the export backlog and its run record says why: scored, with
      // its export failed, or failed.
      const report = (e: unknown): void => log(`spanscore: results store: ${(e as Error).message}`);
      driverOf().exportBacklog.settled(traceId).catch(report);
      if (!config.results.write) return;
      (exportGaveUp
        ? driverOf().results.recordExport(traceId, {
            state: 'failed',
            error: error instanceof Error ? error.message : String(error),
          })
        : driverOf().results.recordFailure(traceId, phase, error)
      ).catch(report);
    },
  };
}
