import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { GEN_AI_TOOL_ATTRIBUTES as G, SPANSCORE_ATTRIBUTES } from '../semconv/attributes.js';
import { TRACER_NAME } from './capture-constants.js';
import { activeCaptureSession } from './capture-session.js';
import { captureValue, DEFAULT_REDACTED_KEYS } from './capture-value.js';
import { thrownText } from './thrown-text.js';
import { currentTestCaseId } from './with-test-case.js';

/** Options of {@link traced} and `@trace`. */
export interface TraceOptions {
  /** The tool's name; default: the function's or method's name. */
  name?: string;
  /** `gen_ai.tool.description`. */
  description?: string;
  /**
   * Record the call's arguments in `gen_ai.tool.call.arguments` (opt-in, as in the GenAI
   * conventions: arguments may be sensitive). One argument is recorded as itself, several as an
   * array; see {@link TraceOptions.mapArguments}.
   * @defaultValue false, or true inside `captureTrace()` (unless it says `captureContent: false`)
   */
  captureArguments?: boolean;
  /**
   * Record the return value (awaited) in `gen_ai.tool.call.result`.
   * @defaultValue false, or true inside `captureTrace()` (unless it says `captureContent: false`)
   */
  captureResult?: boolean;
  /** What to record of the arguments, e.g. `args => args[0]` to leave out an options object. */
  mapArguments?: (args: unknown[]) => unknown;
  /** Longest recorded value; longer JSON is cut and marked. @defaultValue 4096 */
  maxAttributeLength?: number;
  /** Keys (any depth) whose values are recorded as `[REDACTED]`, added to the defaults (token, password, secret, api_key, authorization, cookie, credential, private_key, session_id). */
  redactKeys?: readonly (string | RegExp)[];
  /**
   * The model's tool-call id for this call (`gen_ai.tool.call.id`), so the call joins the model's
   * request when scored. Default: a `toolCallId`, `tool_call_id` or `callId` string property of
   * any argument (the Vercel AI SDK passes `{ toolCallId }` to `execute`).
   */
  callId?: (args: unknown[]) => string | undefined;
  /** The tracer to use; default: `trace.getTracer('spanscore')` from the global provider, at call time. */
  tracer?: Tracer;
}

type AnyFunction = (this: never, ...args: never[]) => unknown;

/**
 * Wraps `fn` so every call is an OTel GenAI `execute_tool` span: named `execute_tool <name>`,
 * kind INTERNAL, with `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.type`,
 * `gen_ai.tool.description`, `gen_ai.tool.call.id` when known, the test case id set by
 * `withTestCase()`, and (when enabled) arguments and result, size-capped and redacted.
 *
 * The wrapper keeps `fn`'s signature, `this`, and sync or async nature: a sync function returns
 * its value, a promise is returned as a promise (of its own class), and any other thenable as a
 * promise of what it settles to (its `then` called once). `fn` runs inside the span's context, so spans it
 * starts are children. A throw or rejection sets status ERROR and `error.type`, records the
 * exception, and is rethrown unchanged. Only `@opentelemetry/api` is used: the span goes wherever
 * the application's tracer provider sends spans (nowhere if none is registered).
 *
 * @example
 * ```ts
 * const getWeather = traced('get_weather', async (city: string) => fetchWeather(city), { captureArguments: true });
 * ```
 */
export function traced<F extends AnyFunction>(name: string, fn: F, options: TraceOptions = {}): F {
  if (typeof fn !== 'function')
    throw new TypeError(`traced(${JSON.stringify(name)}): expected a function, got ${typeof fn}`);
  const toolName = options.name ?? name;
  if (!toolName) throw new TypeError('traced: the tool needs a name');
  const capture = {
    maxLength: options.maxAttributeLength ?? 4096,
    redactKeys: [...DEFAULT_REDACTED_KEYS, ...(options.redactKeys ?? [])],
  };
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
    const attributes: Attributes = {
      [G.operationName]: 'execute_tool',
      [G.toolName]: toolName,
      [G.toolType]: 'function',
    };
    if (options.description) attributes[G.toolDescription] = options.description;
    const callId = (options.callId ?? findCallId)(args);
    if (callId) attributes[G.toolCallId] = callId;
    const testCaseId = currentTestCaseId();
    if (testCaseId) attributes[SPANSCORE_ATTRIBUTES.testCaseId] = testCaseId;
    const inCapture = activeCaptureSession()?.captureContent ?? false;
    const captureResult = options.captureResult ?? inCapture;
    if (options.captureArguments ?? inCapture) {
      const recorded = options.mapArguments
        ? options.mapArguments(args)
        : args.length === 1
          ? args[0]
          : args;
      attributes[G.toolCallArguments] = captureValue(recorded, capture);
    }
    return tracer.startActiveSpan(
      `execute_tool ${toolName}`,
      { kind: SpanKind.INTERNAL, attributes },
      span => {
        let out: unknown;
        try {
          out = (fn as unknown as (...a: unknown[]) => unknown).apply(this, args);
        } catch (error) {
          fail(span, error);
          throw error;
        }
        if (isThenable(out)) {
          // A promise (of its own class) settling as `fn`'s did, after the span ends. A thenable
          // that is no promise is adopted as `await` adopts it, its `then` called once: its own
          // `then` need not return anything.
          const settled = isNativePromise(out) ? out : Promise.resolve(out);
          return settled.then(
            value => {
              succeed(span, value, captureResult, capture);
              return value;
            },
            (error: unknown) => {
              fail(span, error);
              throw error;
            },
          );
        }
        succeed(span, out, captureResult, capture);
        return out;
      },
    );
  };
  Object.defineProperty(wrapped, 'name', { value: fn.name || toolName });
  Object.defineProperty(wrapped, 'length', { value: fn.length });
  return wrapped as unknown as F;
}

function succeed(
  span: Span,
  value: unknown,
  captureResult: boolean,
  capture: Parameters<typeof captureValue>[1],
): void {
  if (captureResult && value !== undefined)
    span.setAttribute(G.toolCallResult, captureValue(value, capture));
  span.end();
}

/**
 * Marks the span failed and ends it. Never throws, whatever `error` is (it is rethrown to the
 * caller as it was): an error whose properties throw is recorded by what can be read of it.
 */
function fail(span: Span, error: unknown): void {
  const { name, message } = thrownText(error);
  try {
    span.recordException(error instanceof Error ? error : { name, message });
  } catch {
    span.recordException({ name, message });
  }
  span.setAttribute(G.errorType, name);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}

/**
 * The call id an argument carries, if any. An argument whose properties throw when read (a
 * revoked Proxy, a strict Proxy that throws on unknown keys) carries none: reading it must never
 * keep the tool from running.
 */
function findCallId(args: unknown[]): string | undefined {
  for (const arg of args) {
    if (typeof arg !== 'object' || arg === null) continue;
    const a = arg as Record<string, unknown>;
    try {
      const id = a.toolCallId ?? a.tool_call_id ?? a.callId;
      if (typeof id === 'string' && id !== '') return id;
    } catch {
      // no id to be had from this one
    }
  }
  return undefined;
}

function isNativePromise(value: unknown): value is Promise<unknown> {
  try {
    return value instanceof Promise;
  } catch {
    return false;
  }
}

/** Whether `value` has a `then` method; a value whose `then` cannot be read is not a thenable. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  try {
    return (
      (typeof value === 'object' || typeof value === 'function') &&
      value !== null &&
      typeof (value as { then?: unknown }).then === 'function'
    );
  } catch {
    return false;
  }
}
