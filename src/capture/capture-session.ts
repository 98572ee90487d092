import { context, createContextKey, type Context, type TracerProvider } from '@opentelemetry/api';
import type { LoggerProvider } from '@opentelemetry/api-logs';

/**
 * The context key under which `captureTrace()` puts its session. `createContextKey` is
 * `Symbol.for`, so two copies of spanscore loaded in one process (vitest may load the package
 * once per test file) still agree on it.
 */
export const CAPTURE_SESSION_KEY = createContextKey('spanscore.capture-session');

/** One `captureTrace()` call: where the spans started inside it go, and what `traced()` records. */
export interface CaptureSession {
  /** The session's own tracer provider; every span started in the session's context uses it. */
  readonly provider: TracerProvider;
  /** The session's own logger provider, for log records emitted in its context. */
  readonly loggerProvider: LoggerProvider;
  /** `traced()` records arguments and results unless its options say otherwise. */
  readonly captureContent: boolean;
}

/** The capture session of `ctx` (default: the active context), if it runs inside `captureTrace()`. */
export function activeCaptureSession(ctx: Context = context.active()): CaptureSession | undefined {
  return ctx.getValue(CAPTURE_SESSION_KEY) as CaptureSession | undefined;
}
