import { toolNames } from '../../normalize/canonical-tool-name.js';
import type { SchemaSource } from '../../normalize/schema-source.js';
import type { ToolRow, ToolsSummary } from '../../results/tool-aggregates.js';
import type { ResultsApiOptions } from './results-api-options.js';

/** A tool row with the schema a call of it without one of its own is checked against now. */
export type ToolRowWithSchema = ToolRow & { schema: SchemaSource | null };

/**
 * `/api/v1/tools` with each row's `schema`: what a call of the tool whose trace records no schema
 * is checked against now (given in config, or learned from the service's recent traffic: which
 * trace, when), or `null`. A store that cannot say leaves every `schema` `null`.
 */
export async function withSchemaSources(
  summary: ToolsSummary,
  sources: ResultsApiOptions['schemaSources'],
): Promise<ToolsSummary & { tools: ToolRowWithSchema[] }> {
  const services = [...new Set(summary.tools.map(t => t.service))];
  const known =
    sources && services.length ? await sources(services).catch(() => undefined) : undefined;
  return {
    ...summary,
    tools: summary.tools.map(t => ({
      ...t,
      schema: known?.get(t.service)?.get(toolNames(t.tool).folded) ?? null,
    })),
  };
}
