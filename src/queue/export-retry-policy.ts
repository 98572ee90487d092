import type { Config } from '../config/config-schema.js';
import type { ExportRetryPolicy } from './export-retry.js';

/** The export retry policy the config asks for. */
export function exportRetryPolicy(config: Readonly<Config>): ExportRetryPolicy {
  return { maxAgeMs: config.export.retryMaxAgeMs, maxBackoffMs: config.export.retryMaxBackoffMs };
}
