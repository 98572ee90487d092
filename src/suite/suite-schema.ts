import { z } from 'zod';

// Each field's meaning is its `.describe()` text, which the JSON Schema in schema/ carries to
// editors (`npm run schemas` writes it).

const scorerRefSchema = z
  .union([z.string().min(1), z.looseObject({ name: z.string().min(1) })])
  .describe(
    "A scorer: its name, or `{ name, ...options }` (`threshold`, `normalize` and the scorer's own options).",
  );

const trialsSchema = z
  .object({
    min: z.number().int().min(1).default(1).describe('Runs needed before the case can pass.'),
    passRate: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe('Pass rate needed over the runs, 0–1 (each scorer on its own).'),
    k: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('The k of pass@k and pass^k in reports; default: the number of runs.'),
  })
  .strict()
  .describe(
    'Repeated runs: the case passes when it has at least `min` runs and a pass rate of at least `passRate`; that, not each single result, decides the exit code.',
  );

const expectedCallSchema = z.union([
  z.string().min(1).describe('A tool name: called, with any arguments.'),
  z
    .object({
      name: z.string().min(1).describe('The tool.'),
      args: z
        .unknown()
        .optional()
        .describe(
          "The arguments expected, compared by the scorer's `args` mode (exact, subset, ignore).",
        ),
      optional: z.boolean().optional().describe('May be called or not.'),
      forbidden: z
        .boolean()
        .optional()
        .describe('Must not be called (with `agent`: must not be called by that agent).'),
      agent: z
        .string()
        .min(1)
        .optional()
        .describe(
          'Multi-agent traces: the agent that must make the call (the nearest enclosing agent span); the right tool called by another agent is a miss.',
        ),
    })
    .strict(),
]);

const toolNamesSchema = z.array(z.string().min(1));

const turnSchema = z
  .object({
    expectedCalls: z
      .array(expectedCallSchema)
      .optional()
      .describe('`tool_trajectory`: the calls expected in this turn.'),
    expectedTools: toolNamesSchema
      .optional()
      .describe('`tool_trajectory`: the tools expected in this turn, in order, any arguments.'),
    agent: z
      .string()
      .min(1)
      .optional()
      .describe("The agent that handles this turn: it makes the turn's expected calls."),
    forbidden: toolNamesSchema.optional().describe('Tools that must not be called in this turn.'),
  })
  .strict()
  .describe("One turn's expectations, matched to the session's traces in start order.");

const beforeRuleSchema = z.tuple([z.string().min(1), z.string().min(1)]);

/** One test case as written in a suite file. */
export const testCaseSchema = z
  .object({
    id: z
      .union([z.string().min(1), z.number().transform(String)])
      .describe(
        'The test case id: traces whose test case id attribute holds it are scored against this case.',
      ),
    input: z.string().optional().describe('The user request (LLM judges read it).'),
    expectedTool: z
      .string()
      .min(1)
      .optional()
      .describe('`tool_call_accuracy`: the tool that must be called.'),
    expectedToolOrder: z
      .array(z.string().min(1))
      .optional()
      .describe('`tool_call_accuracy` in sequence mode: the tools in this order.'),
    strictMode: z
      .boolean()
      .optional()
      .describe(
        '`tool_call_accuracy`: only the expected tool, or only this order, and nothing else.',
      ),
    expectedTools: z
      .array(z.string().min(1))
      .optional()
      .describe('`tool_correctness`: the exact set of tools called.'),
    expectedCalls: z
      .array(expectedCallSchema)
      .optional()
      .describe(
        '`tool_trajectory`: the calls expected, with arguments, optional and forbidden ones.',
      ),
    expectedAgents: z
      .array(z.string().min(1))
      .optional()
      .describe(
        '`agent_routing`: the agents expected to take control, in order (the route); an agent the run returns to need not be listed again.',
      ),
    session: z
      .boolean()
      .optional()
      .describe(
        'A conversation: scored on the session its traces belong to (one trace per turn, grouped by session id), not on each trace; expectations on the case are session-wide.',
      ),
    turns: z
      .array(turnSchema)
      .min(1)
      .optional()
      .describe('A session: each turn’s expectations, in order (needs `session: true`).'),
    forbidden: toolNamesSchema
      .optional()
      .describe('`tool_trajectory`: tools that must never be called (in a session: in any turn).'),
    before: z
      .union([beforeRuleSchema, z.array(beforeRuleSchema).min(1)])
      .optional()
      .describe(
        '`tool_trajectory` ordering rules: `[verify_identity, issue_refund]` (or a list of such pairs): the first must have been called, earlier in the turn or in an earlier turn, before each call of the second.',
      ),
    groundTruth: z.string().optional().describe('What the graders compare the output with.'),
    availableTools: z
      .array(
        z
          .object({
            name: z.string().min(1).describe('The tool.'),
            description: z.string().optional().describe('What it does (LLM judges read it).'),
          })
          .strict(),
      )
      .optional()
      .describe('The tools the agent had (`tool_call_appropriateness` reads them).'),
    scorers: z
      .array(scorerRefSchema)
      .min(1)
      .optional()
      .describe("This case's own scorers, instead of the suite's."),
    metadata: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Anything, for custom scorers.'),
    trials: trialsSchema.optional(),
    recordedFrom: z
      .object({
        traceId: z.string().min(1).describe('The trace the case was recorded from.'),
        leftOut: z
          .array(z.string())
          .optional()
          .describe('Argument paths left out as volatile (ids, timestamps, UUIDs).'),
        otherTraces: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('Other traces of the test case that were not recorded.'),
      })
      .strict()
      .optional()
      .describe(
        'Where `spanscore suite record` took the case from (JSON suites; YAML ones say it in a comment).',
      ),
  })
  .strict();

/** A suite file: YAML or JSON. */
export const suiteSchema = z
  .object({
    $schema: z
      .string()
      .optional()
      .describe('The JSON Schema this file follows, for editors; ignored by spanscore.'),
    name: z.string().optional().describe("The suite's name, in reports."),
    description: z.string().optional().describe('What the suite is for.'),
    aliases: z
      .record(z.string(), z.string())
      .optional()
      .describe('Tool-name aliases, `{ alias: name }`: compared as one tool.'),
    testCaseIdAttributes: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        'Span attributes that carry the test case id; replaces the default list when given.',
      ),
    sessionIdAttributes: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        'Span attributes that carry a session id, read after the defaults (gen_ai.conversation.id, session.id, …); a dotted name is also looked for inside JSON attributes (`metadata.thread_id`).',
      ),
    customScorers: z
      .array(z.string().min(1))
      .optional()
      .describe('Modules (paths relative to the suite file) exporting `defineScorer()` scorers.'),
    scorers: z
      .array(scorerRefSchema)
      .default([])
      .describe('Scorers run on every test case, unless a case lists its own.'),
    trials: trialsSchema.optional(),
    testCases: z.array(testCaseSchema).min(1).describe('The test cases, at least one.'),
  })
  .strict();

/** A suite as parsed, before scorers are resolved. */
export type SuiteFile = z.infer<typeof suiteSchema>;
