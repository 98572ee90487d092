import { cutText } from '../ingest/cut-text.js';

/**
 * What normalization reads of one untrusted attribute at most, and a count of what each bound
 * left unread. Traces are untrusted: any key or text in them may be built to cost memory or time,
 * so each bound is checked before the work it saves (docs/operations.md lists them).
 */
export const INPUT_BOUNDS = Object.freeze({
  /**
   * Attribute keys longer than this are not read as indexed attributes
   * (`llm.input_messages.0.message.role`): real ones are under 120 characters, and finding the
   * prefixes of a longer key cost time in its length (one 800 KB dotted key took 350 ms).
   */
  maxIndexedKeyChars: 1024,
  /**
   * JSON attribute text longer than this (in UTF-16 code units) stays text, unparsed: a message
   * list, tool arguments or result is read by several readers, each parsing it.
   */
  maxJsonChars: 4 * 1024 * 1024,
  /**
   * JSON attribute text whose objects and arrays nest deeper than this stays text, unparsed, as the
   * decoders refuse attribute values nested deeper than 32 levels.
   */
  maxJsonDepth: 64,
  /**
   * Candidates examined, per trace, pairing the calls a model requested with the runs that
   * executed them by tool name and arguments (calls without a call id: OpenInference, LangSmith,
   * Logfire, Traceloop tools). Real traces take a few per request; a trace of thousands of
   * id-less calls to one tool took a number in the square of them (37 million at the trace span
   * cap). Past it, the requests left are kept as requested calls, not paired by name.
   */
  maxPairingSteps: 1_000_000,
  /**
   * Characters kept of a tool's or an agent's name: a longer name is cut to them first, before it
   * is compared, stored or shown (`cutName`). Real names are at most 64 characters (OpenAI's and
   * Anthropic's cap); folding a tool name makes about ten regular-expression passes over it, each
   * about 0.2 µs a character at worst, where parsing JSON is about 400 times faster (a
   * 4-million-character name took 2.7 s each time it was folded, three times a call), and every
   * result, run record and per-minute counter of a trace stores its names (one 4 MB tool name
   * stored 75 MB in Redis).
   */
  maxNameChars: 1024,
});

/**
 * How many times each bound of {@link INPUT_BOUNDS} left a value unread in this process: counted
 * where it is checked (`attribute-values.ts`, `pair-requests.ts`, `cutName`), read by `scoreTrace` around its synchronous steps to
 * say a trace was read in part (the `input_bounded` diagnostic), and by tests that count work.
 */
export const inputBoundHits = {
  longIndexedKeys: 0,
  longJson: 0,
  deepJson: 0,
  pairingSteps: 0,
  longNames: 0,
};

/** The sum of {@link inputBoundHits}: a caller's difference before and after a step. */
export function inputBoundHitCount(): number {
  return (
    inputBoundHits.longIndexedKeys +
    inputBoundHits.longJson +
    inputBoundHits.deepJson +
    inputBoundHits.pairingSteps +
    inputBoundHits.longNames
  );
}

/**
 * A tool's or an agent's name as the pipeline keeps it: at most `INPUT_BOUNDS.maxNameChars`
 * characters, a longer one cut (counted in `inputBoundHits.longNames`, the run's `input_bounded`
 * diagnostic), never between the halves of a surrogate pair (`cutText`).
 */
export function cutName(name: string): string {
  if (name.length <= INPUT_BOUNDS.maxNameChars) return name;
  inputBoundHits.longNames++;
  return cutText(name, INPUT_BOUNDS.maxNameChars);
}
