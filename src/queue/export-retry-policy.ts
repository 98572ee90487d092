import type { Config } from '../config/config-schema.js';
import type { ExportRetryPolicy } from './export-retry.js';

/** The export retry policy the config asks for. */
export function exportRetryPolicy(config: Readonly<Config>): ExportRetryPolicy {
  return { maxAgeMs: config.export.retryMaxAgeMs, maxBackoffMs: config.export.retryMaxBackoffMs };
}

/**
 * How long after its first failed export a trace can still be waiting for a retry, which the
 * export backlog (`spanscore_exports_waiting`) counts no longer: its job retries while younger
 * than `export.retryMaxAgeMs`, its last retry waits out a backoff of up to
 * `export.retryMaxBackoffMs`, and may come later still (a stalled job, a queue behind it): an
 * hour more. An entry older than this is one whose removal was lost.
 */
export function exportBacklogMaxAgeMs(config: Readonly<Config>): number {
  return config.export.retryMaxAgeMs + config.export.retryMaxBackoffMs + 3_600_000;
}
