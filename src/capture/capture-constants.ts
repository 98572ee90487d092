/** The instrumentation scope name of spans made by `traced()` and `withTestCase()`. */
export const TRACER_NAME = 'spanscore';
