import { attributesFor } from '../ingest/read-attributes.js';
import type { SpanDigest } from '../ingest/span-digest.js';
import { SPANSCORE_ATTRIBUTES } from '../semconv/attributes.js';
import { agentSpans } from './attribute-agents.js';
import { carriesConversation } from './extract-conversation.js';
import { extractIndexedToolCalls } from './extract-tool-calls.js';
import { DEFAULT_SESSION_ID_ATTRIBUTES } from './find-session-id.js';
import { DEFAULT_TEST_CASE_ID_ATTRIBUTES } from './find-test-case-id.js';
import { indexTrace } from './indexed-trace.js';
import { extractOfferedTools } from './offered-tools.js';

/**
 * What of a trace's spans a session's held turn keeps: only what session scoring and
 * normalization read (`scoreSession`), so that a session held for hours holds its calls, not its
 * traces. Kept: the root; every span a tool call is read from (tool spans, and model spans whose
 * output carries requested calls); agent and handoff spans (`agentSpans`, and a LangGraph agent's same-named child); spans offering
 * tools (`tool_arguments`); spans carrying a user message or an assistant text (the
 * conversation); the first span carrying each test case id, session id or end marker attribute
 * (the defaults and `idAttributes`, also as the prefix of a dotted name read inside JSON: ids
 * are read from the root, else the first span carrying one, and the order is kept); and every
 * ancestor of a kept span, so parent chains (an agent's calls, nested instrumentations) read the
 * same. GenAI log events are joined to their spans first (`indexTrace`; joining again is a no-op).
 *
 * Dropped: spans nothing of the above reads (HTTP, database, framework plumbing). A trace in which
 * nothing would be dropped comes back as it is. Pure; O(spans × depth).
 */
export function sessionTurnSpans(
  spans: readonly SpanDigest[],
  idAttributes: readonly string[] = [],
): readonly SpanDigest[] {
  const indexed = indexTrace(spans);
  const { byId, root } = indexed;
  const joined = indexed.spans;
  const keep = new Set<SpanDigest>();
  const ids = idNames(idAttributes);
  const callSpans = new Set<string>();
  for (const call of extractIndexedToolCalls(joined, byId, {})) {
    callSpans.add(call.spanId);
    // A requested call merged into the executed one keeps the model span that asked for it.
    if (call.requestedBy !== undefined) callSpans.add(call.requestedBy);
  }
  const offering = extractOfferedTools(joined, undefined, byId);
  const agents = agentSpans(joined, byId);
  // The first span carrying each id attribute (ids are read from the root, else the first span
  // that has one: the order is kept, so the first is enough; most frameworks put them on all).
  const idCarriers = new Set<SpanDigest>();
  for (const span of joined) {
    if (ids.size === 0) break;
    for (const key of ids)
      if (Object.hasOwn(attributesFor(span, key), key)) {
        ids.delete(key);
        idCarriers.add(span);
      }
  }
  for (const span of joined) {
    if (
      span === root ||
      callSpans.has(span.spanId) ||
      offering.has(span.spanId) ||
      idCarriers.has(span) ||
      agents?.has(span.spanId) === true ||
      // A LangGraph agent is a node span running a subgraph of its name: keep that child too.
      agents?.get(span.parentSpanId) === span.name ||
      carriesConversation(span)
    )
      keep.add(span);
  }
  // Ancestors: walked once each (a loop of parent ids stops at a span already kept).
  for (const span of [...keep]) {
    let parent = byId.get(span.parentSpanId);
    while (parent && !keep.has(parent)) {
      keep.add(parent);
      parent = byId.get(parent.parentSpanId);
    }
  }
  if (keep.size === joined.length) return joined;
  return joined.filter(s => keep.has(s));
}

/** The attribute names and JSON prefixes a held turn's ids may be read from. */
function idNames(extra: readonly string[]): Set<string> {
  const names = new Set<string>([SPANSCORE_ATTRIBUTES.sessionEnd]);
  for (const name of [
    ...DEFAULT_TEST_CASE_ID_ATTRIBUTES,
    ...DEFAULT_SESSION_ID_ATTRIBUTES,
    ...extra,
  ]) {
    names.add(name);
    // A dotted name is also looked for inside a JSON attribute named by any of its prefixes.
    for (let at = name.indexOf('.'); at > 0; at = name.indexOf('.', at + 1))
      names.add(name.slice(0, at));
  }
  return names;
}
