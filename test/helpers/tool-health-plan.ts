import type { Config } from '../../src/config/config-schema.js';
import type { ScoringPlan } from '../../src/score/scoring-plan.js';
import { resolveToolHealth } from '../../src/suite/tool-health-rule.js';

/**
 * A plan of tool health alone, on every trace (sample rate 1), content kept: a failure rate above
 * 0 fails, three identical calls are a loop, formats are annotations; `more` changes any of it.
 */
export function toolHealthPlan(more: Partial<Config['toolHealth']> = {}): ScoringPlan {
  return {
    suites: [],
    rules: [],
    toolHealth: resolveToolHealth({
      toolHealth: {
        enabled: true,
        sampleRate: 1,
        maxErrorRate: 0,
        minRepeats: 3,
        assertFormats: false,
        maxToolsPerService: 30,
        ...more,
      },
      results: { storeContent: true } as Config['results'],
    }),
  };
}
