import { z } from 'zod';

const scorerRefSchema = z.union([z.string().min(1), z.looseObject({ name: z.string().min(1) })]);

const expectedCallSchema = z.union([
  z.string().min(1),
  z
    .object({
      name: z.string().min(1),
      args: z.unknown().optional(),
      optional: z.boolean().optional(),
      forbidden: z.boolean().optional(),
    })
    .strict(),
]);

/** One test case as written in a suite file. */
export const testCaseSchema = z
  .object({
    id: z.union([z.string().min(1), z.number().transform(String)]),
    input: z.string().optional(),
    expectedTool: z.string().min(1).optional(),
    expectedToolOrder: z.array(z.string().min(1)).optional(),
    strictMode: z.boolean().optional(),
    expectedTools: z.array(z.string().min(1)).optional(),
    expectedCalls: z.array(expectedCallSchema).optional(),
    groundTruth: z.string().optional(),
    availableTools: z
      .array(z.object({ name: z.string().min(1), description: z.string().optional() }).strict())
      .optional(),
    scorers: z.array(scorerRefSchema).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** A suite file: YAML or JSON. */
export const suiteSchema = z
  .object({
    name: z.string().optional(),
    description: z.string().optional(),
    /** Tool-name aliases, `{ alias: name }`, compared canonically. */
    aliases: z.record(z.string(), z.string()).optional(),
    /** Attributes that carry the test case id; replaces the default list when given. */
    testCaseIdAttributes: z.array(z.string().min(1)).min(1).optional(),
    /** Modules (paths relative to the suite file) exporting `defineScorer` scorers. */
    customScorers: z.array(z.string().min(1)).optional(),
    /** Scorers run on every test case, unless a case lists its own. */
    scorers: z.array(scorerRefSchema).default([]),
    testCases: z.array(testCaseSchema).min(1),
  })
  .strict();

/** A suite as parsed, before scorers are resolved. */
export type SuiteFile = z.infer<typeof suiteSchema>;
