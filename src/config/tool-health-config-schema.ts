import { z } from 'zod';
import { DEFAULT_MIN_REPEATS } from '../normalize/find-repeated-calls.js';
import { positiveInt } from './number-fields.js';

/**
 * The `toolHealth` section: the reference-free scorers run on every trace that no suite or rule
 * claims, and their thresholds.
 */
export const toolHealthConfigSchema = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        '`serve` and `worker` run `tool_errors`, `tool_arguments` and `tool_loops` on every trace that no suite or rule scores; results carry `testCaseId: "rule:tool-health"`.',
      ),
    sampleRate: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe(
        'Share of those traces scored for tool health, decided by the trace id (as rules sample).',
      ),
    maxErrorRate: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe('`tool_errors` fails a trace whose failed calls exceed this share of its calls.'),
    minRepeats: z.coerce
      .number()
      .int()
      .min(2)
      .default(DEFAULT_MIN_REPEATS)
      .describe('`tool_loops` fails a trace with this many identical calls (tool and arguments).'),
    assertFormats: z
      .boolean()
      .default(false)
      .describe(
        '`tool_arguments` asserts `format` (date-time, email, uri…) instead of reading it as an annotation, as JSON Schema 2019-09 and later do by default; Pydantic, for one, accepts date-times a strict check rejects.',
      ),
    maxCallsPerTool: positiveInt()
      .optional()
      .describe('`tool_loops` also fails a trace that calls one tool more often than this.'),
    maxToolsPerService: positiveInt()
      .default(30)
      .describe(
        'Tools labelled by name per service in `spanscore_tool_calls_total` and the per-tool counters; past this many distinct ones, `other`.',
      ),
  })
  .strict()
  .prefault({})
  .describe(
    'Tool health: reference-free scoring of every trace no suite or rule claims (see docs/service.md).',
  );
