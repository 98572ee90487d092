import type { SpanDigest } from '../ingest/span-digest.js';
import { extractOfferedTools } from './offered-tools.js';
import type { OfferedTool } from './tool-definitions.js';

export type { OfferedTool };

/**
 * The tools offered to the model anywhere in this trace, each name once with the first
 * description seen, without their schemas (what the LLM judge is shown): every convention's
 * offered tools (see `extractOfferedTools`), in span order.
 */
export function extractAvailableTools(spans: readonly SpanDigest[]): OfferedTool[] {
  const byName = new Map<string, OfferedTool>();
  for (const tools of extractOfferedTools(spans).values())
    for (const { name, description } of tools)
      if (!byName.has(name))
        byName.set(name, { name, ...(description !== undefined && { description }) });
  return [...byName.values()];
}
