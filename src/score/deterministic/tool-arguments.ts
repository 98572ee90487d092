import { z } from 'zod';
import { assessToolCalls, type ToolCallAssessment } from '../../normalize/assess-tool-calls.js';
import { isTeam } from '../../normalize/attribute-agents.js';
import { describeSchemaSource, type SchemaSource } from '../../normalize/schema-source.js';
import type { Scorer } from '../scorer.js';
import { baseOptionsSchema, parseScorerOptions } from '../scorer-options.js';
import { round2, scored, skipped } from '../score-result.js';

const optionsSchema = baseOptionsSchema.extend({
  unknownTools: z.boolean().default(true),
  /** Assert `format` rather than read it as an annotation (`toolHealth.assertFormats`). */
  assertFormats: z.boolean().default(false),
});

/** Options of {@link toolArguments}. */
export type ToolArgumentsOptions = z.infer<typeof optionsSchema>;

/**
 * Reference-free: each call's arguments checked against the JSON Schema of its tool as offered to
 * the model call that requested it (see `assessToolCalls`), and each call to a tool that model
 * call was not offered counted as an unknown tool (`unknownTools: false` leaves them out). Score:
 * the share of checked and unknown calls that were valid; passes only when all were (or at
 * `threshold`). Details: each invalid call with its problems (`path: message`), each unknown one
 * with the tools that were offered (the first {@link MAX_OFFERED_NAMED}, and their count), each
 * call left unchecked with why. A call whose trace records no schema for its tool is checked
 * against the one the scoring loop found for it (learned from the service's recent traffic, or
 * given in config: see `setFallbackSchemas`), and its verdict says so. A trace none of whose
 * calls could be checked is skipped with the reason: never a pass.
 */
export const toolArguments: Scorer<ToolArgumentsOptions> = {
  name: 'tool_arguments',
  kind: 'deterministic',
  description:
    'Were the tools called those offered, with arguments their schemas accept? (no expectation needed)',
  parseOptions: options => parseScorerOptions(optionsSchema, options),
  score({ trace, options }) {
    if (trace.toolSequence.length === 0) return skipped('no tool calls in this trace');
    const assessment = assessToolCalls(trace, { assertFormats: options.assertFormats });
    const checked = assessment.calls.filter(a => a.argumentProblems !== null);
    const invalid = checked.filter(a => a.argumentProblems!.length > 0);
    const unknown = options.unknownTools ? assessment.calls.filter(a => a.offered === false) : [];
    const unchecked = assessment.calls.filter(
      a => a.argumentProblems === null && !(options.unknownTools && a.offered === false),
    );
    const judged = checked.length + unknown.length;
    if (judged === 0) {
      // Said when schemas were looked up outside the trace and none was found either.
      const elsewhere = assessment.fallbackConsulted
        ? "; no schema for them was learned from the service's recent traffic or given in toolHealth.schemas"
        : '';
      return skipped(
        !assessment.offeredRecorded
          ? `the trace records no tools offered to the model (gen_ai.tool.definitions, ai.prompt.tools, llm.tools.*, …): there is nothing to check the calls against${elsewhere}`
          : !assessment.schemasRecorded && !checkedElsewhere(assessment.calls)
            ? `the trace records the names of the tools offered but not their schemas: the calls' arguments cannot be checked${elsewhere}`
            : `no call's arguments could be checked: ${unchecked[0]?.unchecked ?? 'none recorded'}`,
      );
    }
    const team = isTeam(trace);
    const by = (a: ToolCallAssessment): string =>
      team && a.call.agent ? ` (by ${a.call.agent})` : '';
    const agent = (a: ToolCallAssessment): string | null => (team ? (a.call.agent ?? null) : null);
    const bad = invalid.length + unknown.length;
    const score = round2((judged - bad) / judged);
    const parts = [
      ...invalid.map(
        a =>
          `${a.call.name}${by(a)} was called with invalid arguments: ${sentence(a.argumentProblems!)}${restsOn(a.schemaSource)}`,
      ),
      ...unknown.map(
        a =>
          `${a.call.name}${by(a)} was called but never offered to the model (offered: ${offeredText(a.offeredNames)})`,
      ),
    ];
    const uncheckedText = unchecked.length
      ? `; ${unchecked.length} call(s) not checked (${[...new Set(unchecked.map(a => a.unchecked))].join('; ')})`
      : '';
    const outside = checked.filter(a => a.schemaSource && a.schemaSource.kind !== 'trace');
    const outsideText =
      bad === 0 && outside.length
        ? ` (${outside.length} of them against a schema from outside the trace, which records none: ${[...new Set(outside.map(a => describeSchemaSource(a.schemaSource!)))].slice(0, 3).join('; ')})`
        : '';
    const reason =
      bad === 0
        ? `the arguments of all ${checked.length} checked call(s) match their tools' schemas${outsideText}${uncheckedText}`
        : `${parts.join('. ')}${uncheckedText}`;
    return scored(score, options.threshold ?? 1, reason, {
      checked: checked.length,
      invalidCalls: invalid.map(a => ({
        name: a.call.name,
        callId: a.call.callId ?? null,
        agent: agent(a),
        problems: a.argumentProblems,
        schemaSource: a.schemaSource ?? null,
      })),
      unknownCalls: unknown.map(a => ({
        name: a.call.name,
        callId: a.call.callId ?? null,
        agent: agent(a),
        offered: (a.offeredNames ?? []).slice(0, MAX_OFFERED_NAMED),
        offeredCount: a.offeredNames?.length ?? 0,
      })),
      unchecked: unchecked.map(a => ({
        name: a.call.name,
        callId: a.call.callId ?? null,
        reason: a.unchecked,
      })),
      notes: [...new Set(assessment.calls.flatMap(a => a.notes ?? []))],
      schemaSources: countSources(checked),
    });
  },
};

/**
 * Offered tools a result names for each unknown call, at most (its reason and `offered` in its
 * details; `offeredCount` has them all): a model span may offer thousands of tools, and naming
 * them all for each of thousands of calls made a reason in their product (a 152 KB trace of
 * 3,000 tools and 3,000 such calls: 60 million characters, stored and exported as they were).
 */
export const MAX_OFFERED_NAMED = 10;

/** The offered names of an unknown call as its reason lists them: the first few, the rest counted. */
function offeredText(names: readonly string[] | undefined): string {
  if (!names?.length) return 'none';
  const rest = names.length - MAX_OFFERED_NAMED;
  const listed = (rest > 0 ? names.slice(0, MAX_OFFERED_NAMED) : names).join(', ');
  return rest > 0 ? `${listed} and ${rest} more` : listed;
}

/**
 * What a verdict resting on a schema from outside the trace adds: which schema, and that it is
 * not the trace's own (a learned one is another sender's input).
 */
function restsOn(source: SchemaSource | undefined): string {
  if (!source || source.kind === 'trace') return '';
  return ` (checked against the ${describeSchemaSource(source)}${source.kind === 'learned' ? ', learned from another trace' : ''}: this trace records none for it)`;
}

/** Checked calls by where their schema came from. */
function countSources(
  checked: readonly ToolCallAssessment[],
): Record<SchemaSource['kind'], number> {
  const out = { trace: 0, learned: 0, config: 0 };
  for (const a of checked) out[a.schemaSource?.kind ?? 'trace']++;
  return out;
}

/** Some call was checked against a schema from outside the trace. */
function checkedElsewhere(calls: readonly ToolCallAssessment[]): boolean {
  return calls.some(a => a.schemaSource !== undefined && a.schemaSource.kind !== 'trace');
}

/** Problems as a sentence: `/amount must be number; must have required property 'to'`. */
function sentence(problems: readonly string[]): string {
  return problems.map(p => (p.startsWith('/: ') ? p.slice(3) : p.replace(': ', ' '))).join('; ');
}
