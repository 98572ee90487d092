/**
 * Thrown inside one span's (or log record's) decoding, with the path of the bad field inside the
 * item (`attributes[2].value`, or `''` for the item itself); the decoder catches it and rejects
 * that item alone (a `RejectedSpan`), the rest of the request going on.
 */
export class JsonItemReject extends Error {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(reason);
  }
}
