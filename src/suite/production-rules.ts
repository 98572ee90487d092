import { attributesFor } from '../ingest/read-attributes.js';
import picomatch from 'picomatch';
import type { z } from 'zod';
import { ruleSchema } from '../config/rule-schema.js';
import { SpanscoreError } from '../errors/spanscore-error.js';
import { buildAliasMap } from '../normalize/canonical-tool-name.js';
import { BUILTIN_SCORERS } from '../score/builtin-scorers.js';
import type { LlmContext } from '../score/llm/llm-context.js';
import { createLlmScorers, LLM_SCORER_NAMES, needsJudgeMessage } from '../score/llm/llm-scorers.js';
import type { ResolvedScorer } from '../score/run-scorers.js';
import type { ProductionRule } from '../score/scoring-plan.js';
import { toRef } from './load-suite.js';
import type { Scorer } from '../score/scorer.js';

/**
 * Validates and compiles the config's `rules` (built-in scorers, and the LLM ones when a judge is
 * configured). Throws `SS_USAGE` naming
 * the rule and what is wrong, at start-up.
 */
export function resolveRules(
  raw: readonly z.input<typeof ruleSchema>[],
  llm?: LlmContext,
): ProductionRule[] {
  const llmScorers = llm ? createLlmScorers(llm) : new Map<string, Scorer<unknown>>();
  return raw.map((input, i) => {
    const parsed = ruleSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new SpanscoreError(
        'SS_USAGE',
        `invalid configuration, rules[${i}].${issue.path.join('.')}: ${issue.message}`,
      );
    }
    const rule = parsed.data;
    const scorers = rule.scorers.map((ref, s): ResolvedScorer => {
      const { name, options } = toRef(ref);
      const scorer = BUILTIN_SCORERS.get(name) ?? llmScorers.get(name);
      if (!scorer) {
        const why = (LLM_SCORER_NAMES as readonly string[]).includes(name)
          ? needsJudgeMessage(name)
          : `unknown scorer "${name}"`;
        throw new SpanscoreError(
          'SS_SCORER_UNKNOWN',
          `invalid configuration, rules[${i}].scorers[${s}]: ${why}`,
        );
      }
      try {
        return { scorer, options: scorer.parseOptions(options) };
      } catch (error) {
        throw new SpanscoreError(
          'SS_USAGE',
          `invalid configuration, rules[${i}].scorers[${s}]: scorer ${name}: ${(error as Error).message}`,
          { cause: error },
        );
      }
    });
    const service = rule.match.service === undefined ? undefined : picomatch(rule.match.service);
    const rootName =
      rule.match.rootSpanName === undefined ? undefined : picomatch(rule.match.rootSpanName);
    const attributes = Object.entries(rule.match.attributes ?? {});
    return {
      name: rule.name,
      aliases: buildAliasMap(rule.aliases),
      scorers,
      matches(trace) {
        const root = trace.root;
        if (!root) return false;
        if (service && !service(root.serviceName)) return false;
        if (rootName && !rootName(root.name)) return false;
        return attributes.every(([key, value]) => attributesFor(root, key)[key] === value);
      },
      sampled: traceId => isSampled(traceId, rule.sampleRate),
    };
  });
}

const RANDOM_BITS = 2n ** 56n;

/**
 * Deterministic sampling by trace id: the last 56 bits of a W3C trace id are random (the trace
 * context's randomness), so comparing them with `rate × 2^56` keeps the same traces at the same
 * rate on every process, and a higher rate keeps a superset.
 */
export function isSampled(traceId: string, rate: number): boolean {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  const random = BigInt(`0x${traceId.slice(-14).padStart(14, '0')}`);
  return random < BigInt(Math.floor(rate * Number(RANDOM_BITS)));
}
