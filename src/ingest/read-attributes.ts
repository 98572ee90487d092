import type { Attributes, SpanDigest } from './span-digest.js';
import { isUnreadKey } from './unread-attributes.js';
import type { WireSpanDigest } from './wire-span-digest.js';

/**
 * A span's attributes as spanscore's own readers (extractors, conventions' markers, normalization)
 * read them: for a span still in wire form (the protobuf decoder's, the span batch codec's), every
 * attribute but those in an unread family (`UNREAD_ATTRIBUTE_FAMILIES`), which stay bytes of the
 * request; for any other span, `span.attributes`. A reader may look up any key outside those
 * families here, and enumerate the keys knowing that such keys are missing.
 *
 * `span.attributes` stays whole: user scorers, `inspect`, captures and re-encoding read that.
 */
export function readAttributes(span: SpanDigest): Attributes {
  // The method, not `instanceof`: a property load on the span's shape, which an inline cache
  // answers, where `instanceof` walked the prototype chain in a call of its own on every read
  // (normalizing a plain digest's trace took 1.5 times as long).
  return (span as Partial<WireSpanDigest>).readAttributes?.() ?? span.attributes;
}

/**
 * The attributes to look `key` up in: {@link readAttributes}, unless the key (one from
 * configuration: an id attribute, a rule's) is in an unread family, when `span.attributes`. Also
 * right for the JSON holders of a dotted `key` (`a.b` for `a.b.c`): a holder in a family means the
 * key is in it too.
 */
export function attributesFor(span: SpanDigest, key: string): Attributes {
  return isUnreadKey(key) ? span.attributes : readAttributes(span);
}
