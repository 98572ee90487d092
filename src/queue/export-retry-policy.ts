import type { Config } from '../config/config-schema.js';
import {
  exportRetriesOutlastMs,
  LATE_JOB_MARGIN_MS,
  type ExportRetryPolicy,
} from './export-retry.js';

/** The export retry policy the config asks for. */
export function exportRetryPolicy(config: Readonly<Config>): ExportRetryPolicy {
  return { maxAgeMs: config.export.retryMaxAgeMs, maxBackoffMs: config.export.retryMaxBackoffMs };
}

/**
 * How long after its first failed export a trace can still be waiting for a retry, which the
 * export backlog (`spanscore_exports_waiting`) counts no longer: as long as its export's retries
 * last (`exportRetriesOutlastMs`), and its last try may come later still (a stalled job, a queue
 * behind it: `LATE_JOB_MARGIN_MS`). An entry older than this is one whose removal was lost.
 */
export function exportBacklogMaxAgeMs(config: Readonly<Config>): number {
  return exportRetriesOutlastMs(exportRetryPolicy(config)) + LATE_JOB_MARGIN_MS;
}
