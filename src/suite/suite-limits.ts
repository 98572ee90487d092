import { CST, Lexer } from 'yaml';
import { SpanscoreError } from '../errors/spanscore-error.js';

/**
 * What one suite file may hold, at most. The YAML parser builds a document of about 600 bytes of
 * memory per token before anything can be checked (a 17 MB suite peaked at 2.18 GB, and 17 MB of
 * `[1,1,1,…]` ran `spanscore score` out of heap; at these bounds a load peaks at 600–680 MB), so
 * both are checked first. Far above real suites: the suite `spanscore suite record` writes from
 * the framework fixtures holds about 60 tokens and 400 bytes per test case, so these take some
 * 16,000 recorded test cases.
 */
export const SUITE_LIMITS = {
  /** Bytes of the file (characters, for text given to `parseSuite`): 8 MiB. */
  maxBytes: 8 * 1024 * 1024,
  /**
   * YAML tokens: scalars, aliases, anchors, tags, brackets, commas and indicators (`-`, `:`,
   * `?`), not whitespace or comments. Counted by the YAML lexer, which keeps nothing.
   */
  maxTokens: 1_000_000,
} as const;

/** Tokens the lexer gives that cost the parser nothing worth counting. */
const FREE_TOKENS = new Set(['space', 'newline', 'comment', 'doc-mode', 'byte-order-mark']);

/**
 * Throws `SS_SUITE_INVALID`, naming `file` and the bound, when `text` is past either of
 * {@link SUITE_LIMITS}: its length first, then its tokens, counted by the lexer alone and only as
 * far as the bound (so at most `maxTokens + 1` are counted), before the parser builds anything.
 * Returns the tokens counted.
 */
export function checkSuiteSize(text: string, file: string): number {
  if (text.length > SUITE_LIMITS.maxBytes) throw suiteTooLarge(file);
  let tokens = 0;
  for (const token of new Lexer().lex(text)) {
    // The lexer gives a plain scalar as a marker and then its text (of no type): one token.
    const type = CST.tokenType(token);
    if (type === null || FREE_TOKENS.has(type)) continue;
    if (++tokens > SUITE_LIMITS.maxTokens)
      throw new SpanscoreError(
        'SS_SUITE_INVALID',
        `the suite holds more than ${SUITE_LIMITS.maxTokens.toLocaleString('en-US')} YAML tokens (scalars, brackets, commas and indicators), the bound on a suite file`,
        { location: { file } },
      );
  }
  return tokens;
}

/** The error for a suite past {@link SUITE_LIMITS}' `maxBytes`. */
export function suiteTooLarge(file: string): SpanscoreError {
  return new SpanscoreError(
    'SS_SUITE_INVALID',
    `the suite is larger than ${SUITE_LIMITS.maxBytes.toLocaleString('en-US')} bytes (8 MiB), the bound on a suite file`,
    { location: { file } },
  );
}
