import type { Config } from './config-schema.js';
import { isLoopbackHost } from './resolve-access.js';

/** The OTLP exporter's endpoint when nothing names one (the OTLP/HTTP default). */
export const DEFAULT_TRACES_ENDPOINT = 'http://localhost:4318/v1/traces';

/** Where evaluation spans go, or why they do not. */
export type ExportTarget =
  | {
      enabled: true;
      url: string;
      explicit: boolean;
      /** Where the endpoint came from, for the start-up line. */
      source:
        | 'export.url'
        | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
        | 'OTEL_EXPORTER_OTLP_ENDPOINT'
        | 'the OTLP default: nothing set';
    }
  | { enabled: false; reason: string };

/** The line start-up prints when evaluation spans are not exported. */
export const NOT_EXPORTED =
  'evaluation spans are not exported: set OTEL_EXPORTER_OTLP_ENDPOINT to write them into your tracing backend; results are at /ui/ and /api/v1';

/**
 * Where this process writes evaluation spans: `export.url`, else the standard
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, else the
 * OTLP default (`http://localhost:4318/v1/traces`). Not at all when `export.enabled` is off, or
 * when a process with the receiver would send them to its own receiver (a loopback endpoint on
 * its own port: by default, nothing set and `serve` on 4318), which would read them as late spans
 * of the traces they evaluate. Pure.
 */
export function resolveExport(
  config: Readonly<Config>,
  env: NodeJS.ProcessEnv,
  role: { receiver: boolean },
): ExportTarget {
  if (!config.export.enabled)
    return { enabled: false, reason: `${NOT_EXPORTED} (export.enabled is off)` };
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || undefined;
  const given =
    config.export.url ?? traces ?? (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  const source = config.export.url
    ? 'export.url'
    : traces
      ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
      : base
        ? 'OTEL_EXPORTER_OTLP_ENDPOINT'
        : 'the OTLP default: nothing set';
  const url = given ?? DEFAULT_TRACES_ENDPOINT;
  if (role.receiver && pointsAtItself(url, config.receiver.port))
    return {
      enabled: false,
      reason: `${NOT_EXPORTED} (${url} is this service's own receiver)`,
    };
  return { enabled: true, url, explicit: given !== undefined, source };
}

/**
 * The start-up line that says where evaluation spans go, and why there: every process that scores
 * prints it (or the line of {@link NOT_EXPORTED} when they go nowhere).
 */
export function exportTargetLine(target: Extract<ExportTarget, { enabled: true }>): string {
  return `evaluation spans go to ${target.url} (${target.source}; SPANSCORE_EXPORT=false turns export off)`;
}

function pointsAtItself(url: string, port: number): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const effectivePort = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  return (
    parsed.protocol === 'http:' &&
    effectivePort === port &&
    (isLoopbackHost(parsed.hostname) || parsed.hostname === '0.0.0.0')
  );
}
