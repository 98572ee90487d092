import { resourceText } from './resource-text.js';

/**
 * OpenTelemetry's name for a service that set no `service.name`: the resource semantic
 * conventions' `unknown_service` (an SDK sends `unknown_service:<process name>` itself, e.g.
 * `unknown_service:node`). spanscore shows, stores, filters and labels such traffic by this one
 * name, in the API, the results page and the Prometheus metrics.
 */
export const UNKNOWN_SERVICE = 'unknown_service';

/**
 * The service name spanscore records for a resource's `service.name` value: the value as sent
 * (an SDK's own `unknown_service:node` included), cut at `MAX_RESOURCE_TEXT_CHARS` (256, see
 * `resourceText`), or {@link UNKNOWN_SERVICE} when the resource has none, an empty one or one
 * that is not a string (`undefined` here). The one place this is decided: every reader of a
 * resource (the OTLP decoders, captured SDK spans) calls it. Pure.
 */
export function serviceNameOf(value: string | undefined): string {
  return value ? resourceText(value) : UNKNOWN_SERVICE;
}
