import { createToolCallAccuracyScorerCode } from '@mastra/evals/scorers/prebuilt';
import { mastraOptionsOf, type Case } from './scoring-cases.js';

/**
 * Mastra's code scorer for each case, one built per configuration and shared (its fastest use:
 * the scoring bench times `scorer.run`, not building scorers).
 */
export function mastraScorers(
  cases: readonly Case[],
): Array<ReturnType<typeof createToolCallAccuracyScorerCode>> {
  const byConfig = new Map<string, ReturnType<typeof createToolCallAccuracyScorerCode>>();
  return cases.map(c => {
    const options = mastraOptionsOf(c);
    const key = JSON.stringify(options);
    let scorer = byConfig.get(key);
    if (!scorer) byConfig.set(key, (scorer = createToolCallAccuracyScorerCode(options)));
    return scorer;
  });
}
