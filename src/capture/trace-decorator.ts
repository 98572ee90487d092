import { traced, type TraceOptions } from './traced.js';

type Method = (this: never, ...args: never[]) => unknown;

/**
 * `@trace(options?)`: makes every call of a class method an `execute_tool` span, via
 * {@link traced}. Works in both decorator forms:
 * - TC39 standard decorators (TypeScript 5 default): `(method, context)`;
 * - legacy `experimentalDecorators` (NestJS, older code): `(prototype, key, descriptor)`.
 *
 * The tool is named after the method unless `options.name` says otherwise. Static and instance
 * methods, sync and async, keep `this` and their return types.
 *
 * @example
 * ```ts
 * class WeatherTools {
 *   @trace({ description: 'Current weather for a city', captureArguments: true })
 *   async getWeather(city: string) { return fetchWeather(city); }
 * }
 * ```
 */
export function trace(options: TraceOptions = {}) {
  function decorator<M extends Method>(method: M, context: ClassMethodDecoratorContext): M;
  function decorator(
    target: object,
    key: string | symbol,
    descriptor: PropertyDescriptor,
  ): PropertyDescriptor;
  function decorator(a: unknown, b: unknown, c?: unknown): unknown {
    if (isMethodContext(b)) {
      if (b.kind !== 'method')
        throw new TypeError(`@trace can only decorate methods, not a ${String(b.kind)}`);
      return traced(String(b.name), a as Method, options);
    }
    const descriptor = c as PropertyDescriptor | undefined;
    if (!descriptor || typeof descriptor.value !== 'function') {
      throw new TypeError(`@trace can only decorate methods; ${String(b)} is not one`);
    }
    return { ...descriptor, value: traced(String(b), descriptor.value as Method, options) };
  }
  return decorator;
}

function isMethodContext(value: unknown): value is ClassMethodDecoratorContext {
  return typeof value === 'object' && value !== null && 'kind' in value && 'name' in value;
}
