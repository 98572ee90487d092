import {
  context,
  trace,
  ROOT_CONTEXT,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
  type TracerOptions,
  type TracerProvider,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { installLogRouting } from './capture-routing-logger-provider.js';
import { activeCaptureSession } from './capture-session.js';

const ROUTING = Symbol.for('spanscore.capture-routing-provider');

/**
 * The global tracer provider while `captureTrace()` is in use: a span started in a capture
 * session's context goes to that session's provider; any other span goes to the provider the
 * application had registered before (or nowhere, if none). Tracers are resolved per span, so a
 * tracer obtained once (as instrumentations do) still routes each span by its context.
 */
class CaptureRoutingProvider implements TracerProvider {
  readonly [ROUTING] = true;
  constructor(private readonly fallback: TracerProvider) {}

  getTracer(name: string, version?: string, options?: TracerOptions): Tracer {
    return new CaptureRoutingTracer(
      this.fallback.getTracer(name, version, options),
      (p: TracerProvider) => p.getTracer(name, version, options),
    );
  }
}

class CaptureRoutingTracer implements Tracer {
  constructor(
    private readonly fallback: Tracer,
    private readonly tracerOf: (provider: TracerProvider) => Tracer,
  ) {}

  private pick(ctx: Context): Tracer {
    const session = activeCaptureSession(ctx);
    return session ? this.tracerOf(session.provider) : this.fallback;
  }

  startSpan(name: string, options?: SpanOptions, ctx: Context = context.active()): Span {
    return this.pick(ctx).startSpan(name, options, ctx);
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    ctx: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    a?: SpanOptions | F,
    b?: Context | F,
    c?: F,
  ): ReturnType<F> | undefined {
    let options: SpanOptions = {};
    let ctx: Context = context.active();
    let fn: F | undefined;
    if (typeof a === 'function') fn = a;
    else if (typeof b === 'function') [options, fn] = [a ?? {}, b];
    else [options, ctx, fn] = [a ?? {}, b ?? context.active(), c];
    if (!fn) return undefined;
    return this.pick(ctx).startActiveSpan(name, options, ctx, fn);
  }
}

let contextChecked = false;

/**
 * Makes `captureTrace()` work in this process; cheap to call before every capture. Registers an
 * AsyncLocalStorage context manager unless one is registered, and puts the routing provider in
 * front of whatever tracer provider the OpenTelemetry API delegates to (the application's, or
 * none): spans outside a capture still reach the application's provider. The same for the logs
 * API's logger provider (`installLogRouting`), with the same limits.
 *
 * Limits, both from how the OpenTelemetry API hands out tracers:
 * - With no application provider registered, the router registers itself as the global provider,
 *   so a provider registered after the first capture is refused (as any second registration is):
 *   register yours first, e.g. in a vitest `setupFiles` module.
 * - With one registered, `trace.getTracer` returns that provider's own tracers; one obtained
 *   before the first capture keeps sending its spans to the application. `traced()` tools,
 *   `withTestCase()` and libraries that call `trace.getTracer` per operation (the Vercel AI SDK)
 *   always route.
 *
 * @throws Error when a context manager is registered that does not carry context across calls
 * (then captures could not tell concurrent tests apart).
 */
export function installCaptureRouting(): void {
  if (!contextChecked) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    if (!carriesContext())
      throw new Error(
        'captureTrace: the registered OpenTelemetry context manager does not carry context across calls; register an AsyncLocalStorageContextManager (or none, and spanscore registers it)',
      );
    contextChecked = true;
  }
  installLogRouting();
  const proxy = trace.getTracerProvider() as Partial<DelegatingProvider> & TracerProvider;
  if (typeof proxy.getDelegateTracer !== 'function' || typeof proxy.setDelegate !== 'function')
    throw new Error(
      'captureTrace: @opentelemetry/api did not return its ProxyTracerProvider; is an old copy of @opentelemetry/api loaded?',
    );
  // No delegate: no application provider is registered. Register the router globally, so every
  // copy of @opentelemetry/api in the process (libraries may bundle their own) finds it.
  if (proxy.getDelegateTracer(ROUTING_PROBE) === undefined) {
    trace.setGlobalTracerProvider(new CaptureRoutingProvider(proxy.getDelegate!()));
    return;
  }
  const current = proxy.getDelegate!();
  if (!(ROUTING in current)) proxy.setDelegate(new CaptureRoutingProvider(current));
}

const ROUTING_PROBE = 'spanscore.capture-routing-probe';

/** The shape of the OpenTelemetry API's `ProxyTracerProvider` that routing needs. */
interface DelegatingProvider {
  getDelegate(): TracerProvider;
  getDelegateTracer(name: string): Tracer | undefined;
  setDelegate(delegate: TracerProvider): void;
}

function carriesContext(): boolean {
  const probe = Symbol('spanscore.probe');
  return context.with(
    ROOT_CONTEXT.setValue(probe, true),
    () => context.active().getValue(probe) === true,
  );
}
