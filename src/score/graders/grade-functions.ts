import { compileSafeRegex } from './safe-regex.js';

/** One grade: a 0..1 score and a sentence saying why. */
export interface Grade {
  score: number;
  reason: string;
}

/** A grade function: the submission, and the test case's ground truth when it needs one. */
export interface GradeFunction {
  needsGroundTruth: boolean;
  grade(submission: string, groundTruth: string | undefined): Grade;
}

/**
 * Letta's built-in tool graders, with its semantics: `exact_match` compares after trimming both
 * sides, case-sensitive; `contains` is a case-insensitive substring test; `regex_match` searches
 * the submission for the ground-truth pattern (RE2, linear time); `ascii_printable_only` accepts
 * only code points 32–126, plus `\n` and `\r`.
 */
export const GRADE_FUNCTIONS = {
  exact_match: {
    needsGroundTruth: true,
    grade(submission, groundTruth = '') {
      const ok = submission.trim() === groundTruth.trim();
      return { score: ok ? 1 : 0, reason: `Exact match: ${ok}` };
    },
  },
  contains: {
    needsGroundTruth: true,
    grade(submission, groundTruth = '') {
      const ok = submission.toLowerCase().includes(groundTruth.toLowerCase());
      return { score: ok ? 1 : 0, reason: `Contains ground_truth: ${ok}` };
    },
  },
  regex_match: {
    needsGroundTruth: true,
    grade(submission, groundTruth = '') {
      const ok = compileSafeRegex(groundTruth).matcher(submission).find();
      return { score: ok ? 1 : 0, reason: `Regex match: ${ok}` };
    },
  },
  ascii_printable_only: {
    needsGroundTruth: false,
    grade(submission) {
      const bad: string[] = [];
      for (const ch of submission) {
        const code = ch.codePointAt(0)!;
        if (ch === '\n' || ch === '\r' || (code >= 32 && code <= 126)) continue;
        bad.push(`U+${code.toString(16).toUpperCase().padStart(4, '0')}`);
      }
      return bad.length === 0
        ? { score: 1, reason: 'All characters are printable ASCII' }
        : {
            score: 0,
            reason: `Non-printable or non-ASCII characters: ${[...new Set(bad)].slice(0, 10).join(', ')}`,
          };
    },
  },
} satisfies Record<string, GradeFunction>;

/** A built-in grader name. */
export type GraderName = keyof typeof GRADE_FUNCTIONS;
