import { flatCopy, MIN_VIEW_CHARS } from '../ingest/flat-copy.js';

/**
 * Characters of names a {@link SharedCopies} holds by default: about 20,000 names of a few words,
 * at most 512 KiB of string.
 */
const MAX_HELD_CHARS = 256 * 1024;

/**
 * Copies of their own ({@link flatCopy}) of the names a long-lived structure keeps, one per name,
 * shared: `of(name)` makes a copy the first time it sees `name` and returns that same copy after,
 * so keeping a name costs a lookup (no allocation) once it has been seen, and every holder of it
 * shares one string. Past `maxChars` characters of names held, it starts again (a flood of
 * distinct names costs copies, not memory); copies already handed out stay valid.
 */
export class SharedCopies {
  private copies = new Map<string, string>();
  private chars = 0;

  constructor(private readonly maxChars = MAX_HELD_CHARS) {}

  /**
   * A string equal to `name` that holds no other string (`name` itself when it is short, `null`
   * or `undefined`).
   */
  of<T extends string | null | undefined>(name: T): T;
  of(name: string | null | undefined): string | null | undefined {
    if (name == null || name.length < MIN_VIEW_CHARS) return name;
    const kept = this.copies.get(name);
    if (kept !== undefined) return kept;
    if (this.chars + name.length > this.maxChars) {
      this.copies = new Map();
      this.chars = 0;
    }
    const own = flatCopy(name);
    this.copies.set(own, own);
    this.chars += own.length;
    return own;
  }
}
