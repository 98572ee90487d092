import { readAttributes } from '../../ingest/read-attributes.js';
import { stringAttribute } from '../attribute-values.js';
import { contentAttribute } from '../content-attribute.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import { spanOutcome, type ToolCallExtractor } from './extractor.js';

/**
 * VoltAgent (`@voltagent/core` 2.x, its own OpenTelemetry observability): a tool execution is a
 * `tool.execution:<name>` span with `span.type` `tool`, named by `tool.name`, with the model's
 * call id in `tool.call.id`, the arguments in `input` and the result in `output` (JSON strings);
 * a failed tool ends with status ERROR. Its model spans (`span.type` `llm`) do not record the calls
 * the model requested, only the names of the tools offered (`llm.tools`, comma-separated).
 */
export const voltAgent: ToolCallExtractor = {
  id: 'voltagent',
  executed(span) {
    if (!isVoltAgentSpan(span, 'tool')) return undefined;
    const a = readAttributes(span);
    const rawName = stringAttribute(a, 'tool.name') ?? span.name.replace(/^tool\.execution:/, '');
    return {
      rawName,
      callId: stringAttribute(a, 'tool.call.id'),
      arguments: contentAttribute(a, 'input'),
      result: contentAttribute(a, 'output'),
      ...spanOutcome(span),
    };
  },
  offered(span) {
    const names = voltAgentOfferedTools(span);
    return names.length ? names.map(name => ({ name })) : undefined;
  },
};

/**
 * A span of VoltAgent's tracer of the given `span.type` (`tool`, `llm`, …). The scope name, or the
 * `entity.type` VoltAgent writes on every span, tells it from other users of a `span.type` key.
 */
export function isVoltAgentSpan(span: SpanDigest, type: string): boolean {
  return (
    readAttributes(span)['span.type'] === type &&
    (span.scopeName.startsWith('@voltagent/') || 'entity.type' in readAttributes(span))
  );
}

/** The tool names a VoltAgent model span says were offered (`llm.tools`: `a,b,c`). */
export function voltAgentOfferedTools(span: SpanDigest): string[] {
  if (!isVoltAgentSpan(span, 'llm')) return [];
  const list = readAttributes(span)['llm.tools'];
  return typeof list === 'string' && list !== ''
    ? list
        .split(',')
        .map(n => n.trim())
        .filter(n => n !== '')
    : [];
}
