import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { SPANSCORE_ATTRIBUTES } from '../semconv/attributes.js';
import { TRACER_NAME } from './capture-constants.js';
import { thrownText } from './thrown-text.js';

/**
 * Runs `fn` as test case `id`: everything inside belongs to one trace whose root span,
 * `test_case <id>`, carries `spanscore.test_case.id`, and the id travels in baggage so `traced()`
 * tool spans (and any service that copies baggage, across processes) carry it too. A suite run
 * needs no other wiring. Returns what `fn` returns (a promise stays a promise); a throw marks the
 * span ERROR and is rethrown.
 *
 * **Important**: spans only reach a backend through the tracer provider the application set up;
 * `withTestCase` uses `@opentelemetry/api` only.
 */
export function withTestCase<T>(id: string, fn: () => T, options: { tracer?: Tracer } = {}): T {
  if (typeof id !== 'string' || id === '')
    throw new TypeError('withTestCase: id must be a non-empty string');
  const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
  const bag = (propagation.getBaggage(context.active()) ?? propagation.createBaggage()).setEntry(
    SPANSCORE_ATTRIBUTES.testCaseId,
    { value: id },
  );
  const ctx = propagation.setBaggage(context.active(), bag);
  return tracer.startActiveSpan(
    `test_case ${id}`,
    { kind: SpanKind.INTERNAL, attributes: { [SPANSCORE_ATTRIBUTES.testCaseId]: id } },
    ctx,
    span => {
      const fail = (error: unknown): never => {
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: thrownText(error).message,
        });
        span.end();
        throw error;
      };
      let out: T;
      try {
        out = fn();
      } catch (error) {
        return fail(error);
      }
      if (out instanceof Promise) {
        return (out as Promise<unknown>).then((value: unknown) => {
          span.end();
          return value;
        }, fail) as T;
      }
      span.end();
      return out;
    },
  );
}

/** The test case id set by an enclosing {@link withTestCase}, if any. */
export function currentTestCaseId(): string | undefined {
  return propagation.getBaggage(context.active())?.getEntry(SPANSCORE_ATTRIBUTES.testCaseId)?.value;
}
