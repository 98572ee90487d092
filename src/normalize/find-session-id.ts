import type { SpanDigest } from '../ingest/span-digest.js';
import { LONE_SURROGATE_SOURCE } from '../ingest/well-formed-text.js';
import { LANGFUSE_ATTRIBUTES, SPANSCORE_ATTRIBUTES } from '../semconv/attributes.js';
import { findIdAttributes, idNames, type IdNames, type IdSource } from './find-id-attribute.js';

/**
 * The attributes that tie a trace to a session (a conversation whose turns are traces), checked
 * in this order (see docs/sessions.md for who writes which):
 * - ours, then the GenAI convention, then OpenInference's `session.id` (LangChain and LangGraph
 *   copy metadata `session_id`, `thread_id` or `conversation_id` into it);
 * - Langfuse's, the AI SDK's `experimental_telemetry.metadata.sessionId`;
 * - LangSmith's metadata and Traceloop's (OpenLLMetry) association properties, each under the
 *   three keys LangChain uses.
 */
export const DEFAULT_SESSION_ID_ATTRIBUTES: readonly string[] = [
  SPANSCORE_ATTRIBUTES.sessionId,
  'gen_ai.conversation.id',
  'session.id',
  LANGFUSE_ATTRIBUTES.sessionId,
  'ai.telemetry.metadata.sessionId',
  ...['session_id', 'thread_id', 'conversation_id'].flatMap(key => [
    `langsmith.metadata.${key}`,
    `traceloop.association.properties.${key}`,
  ]),
];

const DEFAULTS: ReadonlySet<string> = new Set(DEFAULT_SESSION_ID_ATTRIBUTES);

/** The defaults are read as whole names only; the user's own names inside JSON too. */
const readsSessionIdInJson = (key: string): boolean => !DEFAULTS.has(key);

/** Session ids longer than this are cut (an id is untrusted text; it names a key and a page). */
export const MAX_SESSION_ID_CHARS = 256;

/** Where a trace's session id was read. */
export type SessionIdSource = IdSource;

/**
 * The session id of a trace and where it was read: for each name of `keys` in order (the
 * defaults, then `sessions.idAttributes`), the root span's attribute, else any span's. Names of
 * the user's own are also looked for inside JSON-object attributes (`metadata.thread_id` finds
 * `thread_id` in `metadata = '{"thread_id":"t-1"}'`), as test case ids are; the defaults are read
 * as whole names only, so a trace without a session costs only direct reads. An id is cut at
 * {@link MAX_SESSION_ID_CHARS}. `undefined` without one: the trace is scored alone, as ever.
 */
export function findSessionId(
  spans: readonly SpanDigest[],
  root: SpanDigest | undefined,
  keys: readonly string[] = DEFAULT_SESSION_ID_ATTRIBUTES,
): SessionIdSource | undefined {
  return sessionIdOf(findIdAttributes(spans, root, [sessionIdNames(keys)])[0]);
}

const namesOf = new WeakMap<readonly string[], IdNames>();

/**
 * The names a session id is read from, as `findIdAttributes` takes them, to look it up in the same
 * walk as other ids; {@link sessionIdOf} makes what it finds a session id. Made once per list of
 * names.
 */
export function sessionIdNames(keys: readonly string[] = DEFAULT_SESSION_ID_ATTRIBUTES): IdNames {
  let names = namesOf.get(keys);
  if (!names) namesOf.set(keys, (names = idNames(keys, readsSessionIdInJson)));
  return names;
}

/**
 * An id found under {@link sessionIdNames} as a session id: cut at {@link MAX_SESSION_ID_CHARS},
 * a lone surrogate (sent, or left by the cut) and any control character (a line break) each
 * replaced by U+FFFD. A session id names keys and lines in the Redis stores: written as UTF-8, a
 * lone surrogate became U+FFFD there and not in memory (two ids one session in Redis, two in
 * the memory driver), and a line break split the session's line in the trace list (the session
 * missing from `/api/v1/sessions`). So both drivers see the same id.
 */
export function sessionIdOf(found: IdSource | undefined): SessionIdSource | undefined {
  if (!found) return found;
  const cut =
    found.id.length <= MAX_SESSION_ID_CHARS ? found.id : found.id.slice(0, MAX_SESSION_ID_CHARS);
  const id = UNFIT.test(cut) ? cut.replace(UNFIT_ALL, '\uFFFD') : cut;
  return id === found.id ? found : { ...found, id };
}

// A control character, or a surrogate without its pair (`wellFormedText`'s rule).
const UNFIT_SOURCE =
  // eslint-disable-next-line no-control-regex -- control characters are what it looks for
  `${/[\u0000-\u001f\u007f]/.source}|${LONE_SURROGATE_SOURCE}`;
const UNFIT = new RegExp(UNFIT_SOURCE);
const UNFIT_ALL = new RegExp(UNFIT_SOURCE, 'g');
