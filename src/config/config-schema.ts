import { z } from 'zod';
import { admissionConfigSchema } from './admission-config-schema.js';
import { assemblyConfigSchema } from './assembly-config-schema.js';
import { exportConfigSchema } from './export-config-schema.js';
import { judgeConfigSchema } from './judge-config-schema.js';
import { metricsConfigSchema } from './metrics-config-schema.js';
import { positiveInt } from './number-fields.js';
import { queueConfigSchema } from './queue-config-schema.js';
import { receiverConfigSchema } from './receiver-config-schema.js';
import { resultsConfigSchema } from './results-config-schema.js';
import { ruleSchema } from './rule-schema.js';
import { sessionsConfigSchema } from './sessions-config-schema.js';
import { toolHealthConfigSchema } from './tool-health-config-schema.js';
import { workerConfigSchema } from './worker-config-schema.js';

// Each field's meaning is its `.describe()` text: `npm run docs:config` writes
// docs/configuration.md from it, and the JSON Schema in schema/ carries it to editors. Sections
// default through `.prefault({})`, so every default is written once, on its field. One file per
// section (`<section>-config-schema.ts`); the order of the keys here is the order of the
// sections in docs/configuration.md and in the JSON Schema.

/**
 * The service configuration: the one place its defaults and meanings are written. A config file
 * (YAML or JSON) and `SPANSCORE_*` variables fill it; `loadConfig` validates it once, at start-up.
 */
export const configSchema = z
  .object({
    $schema: z
      .string()
      .optional()
      .describe('The JSON Schema this file follows, for editors; ignored by spanscore.'),
    queue: queueConfigSchema,
    receiver: receiverConfigSchema,
    assembly: assemblyConfigSchema,
    admission: admissionConfigSchema,
    worker: workerConfigSchema,
    judge: judgeConfigSchema.describe('The LLM judge of `tool_call_appropriateness` and `rubric`.'),
    suites: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Suite files whose test cases are scored (paths relative to the config file; also `--suite`).',
      ),
    rules: z
      .array(ruleSchema)
      .default([])
      .describe(
        'Production rules: score matching traces that belong to no test case (see docs/service.md).',
      ),
    toolHealth: toolHealthConfigSchema,
    sessions: sessionsConfigSchema,
    export: exportConfigSchema,
    metrics: metricsConfigSchema,
    results: resultsConfigSchema,
    shutdownDeadlineMs: positiveInt()
      .default(10_000)
      .describe(
        'How long a shutdown (SIGTERM, SIGINT) may take to finish the work in hand before the process exits anyway.',
      ),
  })
  .strict();

/** The validated configuration. */
export type Config = z.infer<typeof configSchema>;

/** The validated `judge` section. */
export type JudgeConfig = z.infer<typeof judgeConfigSchema>;
