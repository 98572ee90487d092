import { z } from 'zod';
import type { NormalizedTrace } from '../../normalize/normalize-trace.js';
import { nameKey } from '../name-key.js';
import { compileSafeRegex } from './safe-regex.js';

/** Where a grader takes its submission from (Letta's extractors). */
export const submissionExtractorSchema = z.enum([
  'last_assistant',
  'first_assistant',
  'all_assistant',
  'final_output',
  'tool_arguments',
  'tool_output',
  'pattern',
]);

/** Configuration of the `tool_arguments`, `tool_output` and `pattern` extractors. */
export const extractorConfigSchema = z
  .object({
    /** For `tool_arguments` / `tool_output`: which tool (compared by canonical name). */
    toolName: z.string().min(1).optional(),
    /** For `pattern`: an RE2 pattern searched in assistant messages, newest first. */
    pattern: z.string().optional(),
    /** For `pattern`: the capture group to return (0 = the whole match). */
    group: z.number().int().min(0).default(0),
    /** For `pattern`: every match in every assistant message, oldest first, joined by newlines. */
    searchAll: z.boolean().default(false),
  })
  .strict();

/** Validated extractor name. */
export type SubmissionExtractor = z.infer<typeof submissionExtractorSchema>;
/** Validated extractor configuration. */
export type ExtractorConfig = z.infer<typeof extractorConfigSchema>;

/**
 * The text a grader judges, taken from the trace:
 * `last_assistant` / `first_assistant` / `all_assistant` (joined by newlines) over the models'
 * assistant messages; `final_output` the agent's final answer (root span output); `tool_arguments`
 * the arguments of the first call to `toolName` as compact JSON, `"{}"` when it was never called;
 * `tool_output` that call's result (`""` when absent); `pattern` a regex capture from assistant
 * messages (`""` when nothing matches). Returns `""` when the trace recorded nothing.
 */
export function extractSubmission(
  trace: NormalizedTrace,
  extractor: SubmissionExtractor,
  config: ExtractorConfig,
  aliases: ReadonlyMap<string, string>,
): string {
  const messages = trace.conversation.assistantMessages;
  switch (extractor) {
    case 'last_assistant':
      return messages.at(-1) ?? '';
    case 'first_assistant':
      return messages[0] ?? '';
    case 'all_assistant':
      return messages.join('\n');
    case 'final_output':
      return trace.conversation.finalOutput ?? '';
    case 'tool_arguments':
    case 'tool_output': {
      const key = nameKey(true, aliases);
      const want = config.toolName === undefined ? undefined : key.expected(config.toolName);
      const call = trace.toolSequence.find(c => want === undefined || c.canonicalName === want);
      if (!call) return extractor === 'tool_arguments' ? '{}' : '';
      const value = extractor === 'tool_arguments' ? call.arguments : call.result;
      if (value === undefined || value === null) return extractor === 'tool_arguments' ? '{}' : '';
      return typeof value === 'string' ? value : JSON.stringify(value);
    }
    case 'pattern': {
      const regex = compileSafeRegex(config.pattern ?? '');
      const found: string[] = [];
      const ordered = config.searchAll ? messages : [...messages].reverse();
      for (const message of ordered) {
        const m = regex.matcher(message);
        while (m.find()) {
          found.push(m.group(config.group) ?? '');
          if (!config.searchAll) return found[0]!;
        }
      }
      return found.join('\n');
    }
  }
}
