import { context } from '@opentelemetry/api';
import {
  logs,
  type Logger,
  type LoggerOptions,
  type LoggerProvider,
  type LogRecord,
} from '@opentelemetry/api-logs';
import { activeCaptureSession } from './capture-session.js';

const ROUTING = Symbol.for('spanscore.capture-routing-logger-provider');

/**
 * The global logger provider while `captureTrace()` is in use, as `CaptureRoutingProvider` is for
 * tracers: a record emitted in a capture session's context (the record's own `context`, else the
 * active one) goes to that session's logger provider, any other to the provider the application
 * had registered before (or nowhere). The OpenTelemetry GenAI instrumentations emit a model call's
 * messages as such records, so a capture sees the tool calls they carry.
 */
class CaptureRoutingLoggerProvider implements LoggerProvider {
  readonly [ROUTING] = true;
  constructor(private readonly fallback: LoggerProvider) {}

  getLogger(name: string, version?: string, options?: LoggerOptions): Logger {
    const fallback = this.fallback.getLogger(name, version, options);
    const pick = (record?: LogRecord): Logger => {
      const session = activeCaptureSession(record?.context ?? context.active());
      return session ? session.loggerProvider.getLogger(name, version, options) : fallback;
    };
    return {
      emit: record => pick(record).emit(record),
      enabled: options => pick({ context: options?.context }).enabled(options),
    };
  }
}

/**
 * Puts the routing logger provider in front of the global one (see `installCaptureRouting`, which
 * calls this). With none registered it registers itself, and loggers obtained earlier from the API
 * (instrumentations take theirs when constructed) resolve to it on their first record. With one
 * registered, that provider is wrapped: loggers taken from it before keep sending to it.
 */
export function installLogRouting(): void {
  if (ROUTING in logs.getLoggerProvider()) return;
  const router = new CaptureRoutingLoggerProvider(NO_LOGS);
  // Registering answers with the provider already registered, if any: then route in front of it.
  const registered = logs.setGlobalLoggerProvider(router);
  if (registered !== router) {
    logs.disable();
    logs.setGlobalLoggerProvider(new CaptureRoutingLoggerProvider(registered));
  }
}

const NO_LOG: Logger = { emit: () => undefined, enabled: () => false };
const NO_LOGS: LoggerProvider = { getLogger: () => NO_LOG };
