import { readAttributes } from '../../ingest/read-attributes.js';
import { stringAttribute } from '../attribute-values.js';
import { readExecuteToolSpan } from './gen-ai-execute-tool.js';
import type { ToolCallExtractor } from './extractor.js';

/**
 * Last resort: any span carrying `gen_ai.tool.name` that is not a model call. Some emitters
 * (older Pydantic AI, hand instrumentation) set the tool attributes without
 * `gen_ai.operation.name`; Langfuse's type mapper applies the same rule.
 */
export const genAiToolNameFallback: ToolCallExtractor = {
  id: 'gen-ai-tool-name',
  executed(span) {
    const a = readAttributes(span);
    if (stringAttribute(a, 'gen_ai.tool.name') === undefined) return undefined;
    if (stringAttribute(a, 'gen_ai.request.model') !== undefined) return undefined;
    const op = stringAttribute(a, 'gen_ai.operation.name');
    if (op !== undefined && op !== 'execute_tool') return undefined;
    const call = readExecuteToolSpan(span);
    return call ?? null;
  },
};
