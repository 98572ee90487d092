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
    sessions: z
      .boolean()
      .default(false)
      .describe(
        'Production conversations: traces with a session id are gathered into their sessions (as session test cases are; see `sessions`), and `tool_loops` and `tool_errors` run across each conversation when it is scored (a lookup repeated over three turns, a failed call in any turn); results carry `testCaseId: "rule:tool-health"` and the session id. Off: nothing is held, a trace pays only for reading its session id.',
      ),
    sessionSampleRate: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe(
        'Share of conversations gathered and scored for tool health with `sessions` on, decided by a hash of the session id, so every turn of a conversation is decided alike.',
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
    learnSchemas: z
      .enum(['on', 'off', 'token'])
      .default('on')
      .describe(
        "A call whose trace records no schema for its tool is checked against the latest one the same service (and `service.version`, when the trace has one) offered for it in the last 24 h, and its verdict names that trace. `on`: learned from every scored trace with tool calls; `token`: only while the receiver requires an ingest token (`receiver.authTokens`), so that only token holders' traces teach; `off`: nothing learned or used. A trace's own schema always wins.",
      ),
    schemas: z
      .array(
        z
          .object({
            service: z.string().min(1).describe("The traces' `service.name`."),
            version: z
              .string()
              .min(1)
              .optional()
              .describe('Only traces of this `service.version`; unset: every version.'),
            file: z
              .string()
              .min(1)
              .describe(
                'A JSON file: a saved MCP `tools/list` result (`{"tools": [{"name", "inputSchema"}]}`, or the JSON-RPC response holding it), a list of tool definitions, or one tool\'s JSON Schema (then `tool` names it). Relative to the config file.',
              ),
            tool: z
              .string()
              .min(1)
              .optional()
              .describe(
                "The tool a file of one JSON Schema is for; unset: the file's name without `.json`.",
              ),
          })
          .strict(),
      )
      .max(100)
      .default([])
      .describe(
        "Schemas given for services' tools, for calls whose trace records none (they win over learned ones): each `{ service, version?, file, tool? }`, `file` a JSON file relative to the config file: a saved MCP `tools/list` result, a list of tool definitions, or one tool's JSON Schema (`tool` names it; unset: the file's name without `.json`). Read and checked at start-up, at most 1 MiB and 500 tools a file (see docs/service.md, \"A schema for every call\").",
      ),
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
