/** The attribute (and baggage key) that ties spans to a suite's test case. */
export const TEST_CASE_ID_ATTRIBUTE = 'spanscore.test_case.id';

/** The instrumentation scope name of spans made by `traced()` and `withTestCase()`. */
export const TRACER_NAME = 'spanscore';
