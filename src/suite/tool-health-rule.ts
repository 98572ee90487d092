import type { Config } from '../config/config-schema.js';
import { toolArguments } from '../score/deterministic/tool-arguments.js';
import { toolErrors } from '../score/deterministic/tool-errors.js';
import { toolLoops } from '../score/deterministic/tool-loops.js';
import type { ResolvedScorer } from '../score/run-scorers.js';
import type { ToolHealthRule } from '../score/scoring-plan.js';
import type { Scorer } from '../score/scorer.js';
import { isSampled } from './production-rules.js';

/**
 * Tool health from the config: the three reference-free scorers with the configured limits, on
 * the share of traces `sampleRate` keeps (by trace id, as rules sample); `undefined` when off.
 * Error texts and repeated arguments stay out of results when `results.storeContent` is off.
 */
export function resolveToolHealth(
  // Schema learning and given schemas are the scoring runtime's (see `createScoringRuntime`).
  config: Pick<Config, 'results'> & {
    toolHealth: Omit<Config['toolHealth'], 'learnSchemas' | 'schemas'>;
  },
): ToolHealthRule | undefined {
  const health = config.toolHealth;
  if (!health.enabled) return undefined;
  const content = config.results.storeContent;
  const resolve = <O>(scorer: Scorer<O>, options: Record<string, unknown>): ResolvedScorer => ({
    scorer: scorer,
    options: scorer.parseOptions(options),
  });
  return {
    sampled: traceId => isSampled(traceId, health.sampleRate),
    scorers: [
      resolve(toolErrors, { maxErrorRate: health.maxErrorRate, errorText: content }),
      resolve(toolArguments, { assertFormats: health.assertFormats }),
      resolve(toolLoops, {
        minRepeats: health.minRepeats,
        showArguments: content,
        ...(health.maxCallsPerTool !== undefined && { maxCallsPerTool: health.maxCallsPerTool }),
      }),
    ],
  };
}
