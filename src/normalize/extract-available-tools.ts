import type { SpanDigest } from '../ingest/span-digest.js';
import { GENKIT_ATTRIBUTES } from '../semconv/attributes.js';
import { indexedAttributes, isRecord, jsonAttribute, parseMaybeJson } from './attribute-values.js';
import { isGenkitModelSpan } from './extractors/genkit.js';
import { voltAgentOfferedTools } from './extractors/voltagent.js';

/** A tool the model was offered. */
export interface OfferedTool {
  name: string;
  description?: string;
}

/**
 * The tools offered to the model in this trace, from `gen_ai.tool.definitions` (GenAI, OpenLLMetry,
 * Mastra, Vercel v7), `ai.prompt.tools` (Vercel AI SDK v4–v6) and `llm.tools.<i>.tool.json_schema`
 * (OpenInference), the `tools` of a Genkit model span's `genkit:input`, and the names in a
 * VoltAgent model span's `llm.tools`. Flat (`{name, description}`) and OpenAI-nested (`{function: {…}}`) shapes are
 * both read; each name once, first description wins.
 */
export function extractAvailableTools(spans: readonly SpanDigest[]): OfferedTool[] {
  const byName = new Map<string, OfferedTool>();
  const add = (value: unknown): void => {
    const v = parseMaybeJson(value);
    const def = isRecord(v) && isRecord(v.function) ? v.function : v;
    if (!isRecord(def) || typeof def.name !== 'string' || def.name === '' || byName.has(def.name))
      return;
    byName.set(def.name, {
      name: def.name,
      ...(typeof def.description === 'string' && { description: def.description }),
    });
  };
  for (const span of spans) {
    const a = span.attributes;
    for (const key of ['gen_ai.tool.definitions', 'ai.prompt.tools']) {
      const list = jsonAttribute(a, key);
      if (Array.isArray(list)) list.forEach(add);
    }
    for (const tool of indexedAttributes(a, 'llm.tools')) add(tool['tool.json_schema']);
    if (isGenkitModelSpan(span)) {
      const input = jsonAttribute(a, GENKIT_ATTRIBUTES.input);
      if (isRecord(input) && Array.isArray(input.tools)) input.tools.forEach(add);
    }
    for (const name of voltAgentOfferedTools(span)) add({ name });
  }
  return [...byName.values()];
}
