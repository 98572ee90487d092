import { readAttributes } from '../../ingest/read-attributes.js';
import { stringAttribute } from '../attribute-values.js';
import { contentAttribute } from '../content-attribute.js';
import { spanOutcome, type ToolCallExtractor } from './extractor.js';

/**
 * Pydantic AI (Logfire). Instrumentation v2 names tool spans `running tool` and records
 * `tool_arguments` / `tool_response`; v3 and later (default v5) emit standard `execute_tool`
 * spans with `gen_ai.tool.call.arguments` / `.result`, which this extractor reads too so a trace
 * mixing versions reads the same.
 */
export const pydanticAi: ToolCallExtractor = {
  id: 'pydantic-ai',
  executed(span) {
    const a = readAttributes(span);
    const v2 = span.name === 'running tool' || 'tool_arguments' in a;
    const current =
      typeof a['logfire.msg'] === 'string' && a['logfire.msg'].startsWith('running tool');
    if (!v2 && !current) return undefined;
    const rawName = stringAttribute(a, 'gen_ai.tool.name');
    if (rawName === undefined) return null;
    return {
      rawName,
      callId: stringAttribute(a, 'gen_ai.tool.call.id'),
      arguments:
        contentAttribute(a, 'gen_ai.tool.call.arguments') ?? contentAttribute(a, 'tool_arguments'),
      result:
        contentAttribute(a, 'gen_ai.tool.call.result') ?? contentAttribute(a, 'tool_response'),
      ...spanOutcome(span),
    };
  },
};
