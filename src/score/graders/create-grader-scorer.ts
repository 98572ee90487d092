import { z } from 'zod';
import type { Scorer } from '../scorer.js';
import { baseOptionsSchema, parseScorerOptions } from '../scorer-options.js';
import { scored, skipped } from '../score-result.js';
import {
  extractorConfigSchema,
  extractSubmission,
  submissionExtractorSchema,
} from './extract-submission.js';
import { GRADE_FUNCTIONS, type GraderName } from './grade-functions.js';
import { compileSafeRegex } from './safe-regex.js';

const optionsSchema = baseOptionsSchema.extend({
  extractor: submissionExtractorSchema.default('last_assistant'),
  extractorConfig: extractorConfigSchema.default({ group: 0, searchAll: false }),
  /** Used when the test case has no `groundTruth` (production rules). */
  groundTruth: z.string().optional(),
});

/** Options of a grader scorer. */
export type GraderOptions = z.infer<typeof optionsSchema>;

/**
 * A Letta-style grader as a scorer: extract a submission from the trace, grade it. A grader that
 * needs ground truth is skipped when the test case has none; an empty submission scores 0
 * ("the extractor found no content"), as in Letta.
 */
export function createGraderScorer(name: GraderName): Scorer<GraderOptions> {
  const grader = GRADE_FUNCTIONS[name];
  return {
    name,
    kind: 'deterministic',
    description: `Letta's ${name} grader over a submission taken from the trace`,
    parseOptions(options) {
      const parsed = parseScorerOptions(optionsSchema, options);
      if (parsed.extractor === 'pattern') {
        if (parsed.extractorConfig.pattern === undefined)
          throw new Error('option "extractorConfig.pattern": required by the pattern extractor');
        compileSafeRegex(parsed.extractorConfig.pattern);
      }
      if (name === 'regex_match' && parsed.groundTruth !== undefined)
        compileSafeRegex(parsed.groundTruth);
      return parsed;
    },
    score({ trace, testCase, options, aliases }) {
      const groundTruth = testCase?.groundTruth ?? options.groundTruth;
      if (grader.needsGroundTruth && groundTruth === undefined)
        return skipped('no groundTruth for this test case');
      const submission = extractSubmission(
        trace,
        options.extractor,
        options.extractorConfig,
        aliases,
      );
      const threshold = options.threshold ?? 1;
      const details = {
        extractor: options.extractor,
        submission: submission.slice(0, 2000),
        groundTruth,
      };
      if (submission.trim() === '') {
        return scored(
          0,
          threshold,
          `Empty submission: the ${options.extractor} extractor found no content`,
          details,
        );
      }
      const { score, reason } = grader.grade(submission, groundTruth);
      return scored(score, threshold, reason, details);
    },
  };
}
