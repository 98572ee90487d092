/**
 * `spanscore/vitest`: assertions on how an agent used its tools, inside vitest.
 *
 * Importing this module (in a test file, or once through vitest's `setupFiles`) registers the
 * matchers on vitest's `expect` and types them on its `Assertion`:
 *
 * ```ts
 * import { captureTrace } from 'spanscore/vitest';
 *
 * it('books after searching', async () => {
 *   const run = await captureTrace(() => agent.run('Book me a flight to Paris'));
 *   expect(run).toHaveUsedTools(['search_flights', 'book_flight']);
 *   expect(run).toHaveCalledTool('search_flights', { to: 'CDG' });
 *   expect(run).toHaveCalledToolsInOrder(['search_flights', 'book_flight']);
 *   await expect(run).toPassScorer('tool_trajectory', { expectedCalls: [{ name: 'book_flight' }] });
 * });
 *
 * it('uses its tools soundly', async () => {
 *   const run = await captureTrace(() => agent.run('Convert 100 EUR to USD'));
 *   expect(run).toHaveNoToolErrors();
 *   expect(run).toHaveValidToolArguments();
 *   expect(run).not.toHaveRepeatedToolCalls();
 * });
 *
 * it('hands refunds to billing', async () => {
 *   const run = await captureTrace(() => team.run('Refund order 42'));
 *   expect(run).toHaveRoutedTo(['triage', 'billing']);
 *   expect(run).toHaveCalledTool('issue_refund', { agent: 'billing' });
 * });
 * ```
 *
 * @packageDocumentation
 */
import { expect } from 'vitest';
import { toolMatchers, type ToolMatchers } from './tool-matchers.js';

expect.extend(toolMatchers);

declare module 'vitest' {
  // Interface merging is how vitest documents typing custom matchers; the body comes from ToolMatchers.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-explicit-any
  interface Assertion<T = any> extends ToolMatchers<T> {}
}

export { captureTrace } from '../capture/capture-trace.js';
export type { CaptureTraceOptions, CapturedTrace } from '../capture/capture-trace.js';
export { captureSession } from '../capture/capture-conversation.js';
export type { CaptureSessionOptions, CapturedSession } from '../capture/capture-conversation.js';
export { toolMatchers } from './tool-matchers.js';
export type { MatcherOutcome } from './matcher-report.js';
export type {
  CalledByAgent,
  ExpectedToolCall,
  NoToolErrorsOptions,
  RepeatOptions,
  RepeatedToolCallsOptions,
  RoutedToOptions,
  ToolMatcherFunctions,
  ToolMatchers,
  ToolSnapshotOptions,
  ToolOrderOptions,
  UsedToolsOptions,
} from './tool-matchers.js';
