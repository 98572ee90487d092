import type { TestCase } from './test-case.js';

/**
 * The tools a test case expects, in order, for reports and diffs: the names of its
 * `expectedCalls` (forbidden ones left out), else a session's turns' expected calls (or tools),
 * turn after turn, else `expectedToolOrder`, else `expectedTools`, else `expectedTool`.
 * `undefined` when it states none (e.g. a rule, or an LLM-only case).
 */
export function expectedToolsOf(
  testCase:
    | Partial<
        Pick<
          TestCase,
          'expectedCalls' | 'expectedToolOrder' | 'expectedTools' | 'expectedTool' | 'turns'
        >
      >
    | undefined,
): string[] | undefined {
  if (!testCase) return undefined;
  if (testCase.expectedCalls)
    return testCase.expectedCalls.filter(c => !c.forbidden).map(c => c.name);
  if (testCase.turns?.some(t => t.expectedCalls || t.expectedTools))
    return testCase.turns.flatMap(t =>
      t.expectedCalls
        ? t.expectedCalls.filter(c => !c.forbidden).map(c => c.name)
        : (t.expectedTools ?? []),
    );
  if (testCase.expectedToolOrder) return [...testCase.expectedToolOrder];
  if (testCase.expectedTools) return [...testCase.expectedTools];
  if (testCase.expectedTool) return [testCase.expectedTool];
  return undefined;
}
