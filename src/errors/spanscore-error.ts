import { ERROR_CODES, type ErrorCategory, type ErrorCode } from './error-codes.js';

/** Where in the user's input an error was found. Every field is optional; set what is known. */
export interface ErrorLocation {
  /** The file the input came from. */
  file?: string;
  /** Which request or line inside the file, e.g. `line 3` or `request 2`. */
  record?: string;
  /** The path inside the document, e.g. `resourceSpans[0].scopeSpans[1].spans[4].traceId`. */
  path?: string;
}

/**
 * The one error class spanscore throws on purpose. `code` is stable and documented;
 * `message` is for people and names what was wrong and where.
 */
export class SpanscoreError extends Error {
  override readonly name = 'SpanscoreError';
  readonly code: ErrorCode;
  readonly category: ErrorCategory;
  readonly location: ErrorLocation | undefined;
  /** For retryable (`upstream`) errors: how long the caller should wait before trying again. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { location?: ErrorLocation; cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(formatMessage(message, options.location), { cause: options.cause });
    this.code = code;
    this.category = ERROR_CODES[code].category;
    this.location = options.location;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** True for any {@link SpanscoreError}, including one from another copy of this package. */
export function isSpanscoreError(error: unknown): error is SpanscoreError {
  return (
    error instanceof SpanscoreError ||
    (error instanceof Error && error.name === 'SpanscoreError' && 'code' in error)
  );
}

function formatMessage(message: string, location: ErrorLocation | undefined): string {
  if (!location) return message;
  const where = [location.file, location.record, location.path].filter(Boolean).join(': ');
  return where ? `${where}: ${message}` : message;
}
