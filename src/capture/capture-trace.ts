import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  SimpleLogRecordProcessor,
} from '@opentelemetry/sdk-logs';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { buildAliasMap } from '../normalize/canonical-tool-name.js';
import type { ToolCallExtractor } from '../normalize/extractors/extractor.js';
import { normalizeTrace, type NormalizedTrace } from '../normalize/normalize-trace.js';
import { SPANSCORE_ATTRIBUTES } from '../semconv/attributes.js';
import { TRACER_NAME } from './capture-constants.js';
import { installCaptureRouting } from './capture-routing-provider.js';
import { CAPTURE_SESSION_KEY, type CaptureSession } from './capture-session.js';
import { logCarrierOf } from './log-carrier-of.js';
import { spanDigestOf } from './span-digest-of.js';
import { thrownText } from './thrown-text.js';

/** Options of {@link captureTrace}. */
export interface CaptureTraceOptions {
  /** Name of the root span the capture opens. @defaultValue `'capture_trace'` */
  name?: string;
  /**
   * The test case id: set on the root span and in baggage, as `withTestCase()` does, so every
   * `traced()` span carries it and the captured trace can be scored as that test case.
   */
  testCaseId?: string;
  /** `service.name` of the captured spans. @defaultValue `'agent-under-test'` */
  serviceName?: string;
  /**
   * `traced()` tools record arguments and results inside the capture unless their own options
   * say `captureArguments: false` / `captureResult: false`. @defaultValue true
   */
  captureContent?: boolean;
  /** Tool-name aliases (`{ alias: canonical }`), as a suite's `aliases`. */
  aliases?: Record<string, string>;
  /** Extractors to read tool calls with; default: all of spanscore's. */
  extractors?: readonly ToolCallExtractor[];
  /** More attributes of the root span (`captureSession` names the session here). */
  rootAttributes?: Record<string, string>;
}

/**
 * What {@link captureTrace} returns: the spans started inside the call, read as spanscore reads
 * any trace (the same normalization and extractors), plus what the function returned.
 */
export interface CapturedTrace<T = unknown> extends NormalizedTrace {
  /** What the captured function returned (awaited). */
  readonly result: T;
  /** The tool names of {@link NormalizedTrace.toolSequence}, in order, repeats kept. */
  readonly toolNames: string[];
  /** The alias map the trace was normalized with; matchers compare names with it. */
  readonly aliases: ReadonlyMap<string, string>;
}

/**
 * Runs `fn` and captures every span started inside it — `traced()` / `@trace` tools and any
 * OpenTelemetry-instrumented library called from it (the Vercel AI SDK with telemetry on, an
 * OpenInference instrumentation, …) — in memory, for this call only, with the GenAI log records
 * emitted inside it through the OpenTelemetry logs API (the OpenTelemetry GenAI instrumentations
 * write a model call's messages, its tool calls among them, as such records). Concurrent captures (vitest's
 * `it.concurrent`) never see each other's spans: each runs in its own async context, with its own
 * tracer provider. The spans share one trace, under a root span named `options.name`.
 *
 * Works with or without an application tracer provider: spans outside any capture still go to
 * the application's provider; spans inside go to the capture only. On first use it registers an
 * AsyncLocalStorage context manager if none is registered (see `installCaptureRouting` for the
 * limits). Spans still open when `fn` settles are left out.
 *
 * A throw or rejection of `fn` is rethrown unchanged; the capture is then discarded.
 *
 * @example
 * ```ts
 * const run = await captureTrace(() => agent.run('Weather in Paris?'));
 * expect(run).toHaveUsedTools(['get_weather']);
 * ```
 */
export async function captureTrace<T>(
  fn: () => T | Promise<T>,
  options: CaptureTraceOptions = {},
): Promise<CapturedTrace<Awaited<T>>> {
  if (typeof fn !== 'function')
    throw new TypeError(`captureTrace: expected a function, got ${typeof fn}`);
  if (
    options.testCaseId !== undefined &&
    (typeof options.testCaseId !== 'string' || !options.testCaseId)
  )
    throw new TypeError('captureTrace: testCaseId must be a non-empty string');
  installCaptureRouting();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName ?? 'agent-under-test' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const logExporter = new InMemoryLogRecordExporter();
  const loggerProvider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName ?? 'agent-under-test' }),
    processors: [new SimpleLogRecordProcessor({ exporter: logExporter })],
  });
  const session: CaptureSession = {
    provider,
    loggerProvider,
    captureContent: options.captureContent ?? true,
  };
  let ctx = context.active().setValue(CAPTURE_SESSION_KEY, session);
  const rootAttributes: Record<string, string> = { ...options.rootAttributes };
  if (options.testCaseId) {
    rootAttributes[SPANSCORE_ATTRIBUTES.testCaseId] = options.testCaseId;
    const bag = (propagation.getBaggage(ctx) ?? propagation.createBaggage()).setEntry(
      SPANSCORE_ATTRIBUTES.testCaseId,
      { value: options.testCaseId },
    );
    ctx = propagation.setBaggage(ctx, bag);
  }
  // The root starts a new trace even when the caller is inside a span of its own.
  const root = provider
    .getTracer(TRACER_NAME)
    .startSpan(
      options.name ?? 'capture_trace',
      { kind: SpanKind.INTERNAL, root: true, attributes: rootAttributes },
      ctx,
    );
  let result: Awaited<T>;
  try {
    result = await context.with(trace.setSpan(ctx, root), fn);
  } catch (error) {
    root.setStatus({
      code: SpanStatusCode.ERROR,
      message: thrownText(error).message,
    });
    root.end();
    await provider.shutdown();
    await loggerProvider.shutdown();
    throw error;
  }
  root.end();
  const traceId = root.spanContext().traceId;
  const spans = exporter.getFinishedSpans().map(spanDigestOf);
  // GenAI log records of this trace (the OpenTelemetry instrumentations' messages), as carriers
  // that normalization joins to their spans.
  for (const record of logExporter.getFinishedLogRecords()) {
    const carrier = logCarrierOf(record);
    if (carrier?.traceId === traceId) spans.push(carrier);
  }
  await provider.shutdown();
  await loggerProvider.shutdown();
  const aliases = buildAliasMap(options.aliases);
  const normalized = normalizeTrace(traceId, spans, {
    aliases,
    ...(options.extractors ? { extractors: options.extractors } : {}),
  });
  const captured = {
    traceId: normalized.traceId,
    root: normalized.root,
    spans: normalized.spans,
    toolSequence: normalized.toolSequence,
    toolsUsed: normalized.toolsUsed,
    handoffs: normalized.handoffs,
    agents: normalized.agents,
    toolNames: normalized.toolSequence.map(c => c.name),
    testCaseId: normalized.testCaseId,
    serviceName: normalized.serviceName,
    serviceVersion: normalized.serviceVersion,
    deploymentEnvironment: normalized.deploymentEnvironment,
    result,
    aliases,
  };
  // Read on first access, as in the normalized trace: only graders and judges need them.
  return Object.defineProperties(captured, {
    conversation: { get: () => normalized.conversation, enumerable: false },
    agentName: { get: () => normalized.agentName, enumerable: false },
  }) as typeof captured & Pick<NormalizedTrace, 'conversation' | 'agentName'>;
}

/**
 * Runs `fn` `times` times, one after another, each in a capture of its own (see
 * {@link captureTrace}), and returns every run's trace in order: an agent is not deterministic,
 * so repeated runs tell a flaky tool choice from a stable one. `fn` gets the run's index (from
 * 0). The `spanscore/vitest` matchers take the array, with `{ minPassRate }`.
 */
captureTrace.repeat = async function repeat<T>(
  times: number,
  fn: (run: number) => T | Promise<T>,
  options: CaptureTraceOptions = {},
): Promise<Array<CapturedTrace<Awaited<T>>>> {
  if (!Number.isInteger(times) || times < 1)
    throw new TypeError(
      `captureTrace.repeat: expected a positive whole number of runs, got ${times}`,
    );
  if (typeof fn !== 'function')
    throw new TypeError(`captureTrace.repeat: expected a function, got ${typeof fn}`);
  const runs: Array<CapturedTrace<Awaited<T>>> = [];
  for (let run = 0; run < times; run++) runs.push(await captureTrace(() => fn(run), options));
  return runs;
};
