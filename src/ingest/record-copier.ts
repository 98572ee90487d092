/** Bytes of a copy up to which {@link RecordCopier} copies in a loop; past them, `Buffer#copy`. */
const LOOP_UP_TO = 1024;

/**
 * Copies spans' attribute records (a few hundred bytes each, from a request body) into one
 * target Buffer, for the memory driver that holds them (`WireSpanDigest.moveRecords`). Short
 * copies go sixteen bytes a step, as two 8-byte words, through `DataView`s, which optimized code
 * reads and writes as machine words: `Buffer#copy` from an offset makes a view of its source each call
 * on Node 20 (an object a span, where the bytes are few), and a loop of single bytes was the
 * memory driver's hottest line (3% of a scored span's CPU, `npm run bench`). A copier holds a view
 * of its target, and of the last source it read (the spans of one request share their body): make
 * one per target, and let it go with the copy. It copies forwards: the target must not overlap a
 * source (the memory driver's is always a new Buffer).
 */
export class RecordCopier {
  private readonly into: DataView;
  private source: Buffer | undefined;
  private from: DataView | undefined;

  constructor(private readonly target: Buffer) {
    this.into = new DataView(target.buffer, target.byteOffset, target.byteLength);
  }

  /** Copies `source`'s bytes from `start` to `end` into the target at `at`. */
  copy(source: Buffer, start: number, end: number, at: number): void {
    const n = end - start;
    if (n > LOOP_UP_TO) {
      source.copy(this.target, at, start, end);
      return;
    }
    if (source !== this.source) {
      this.source = source;
      this.from = new DataView(source.buffer, source.byteOffset, source.byteLength);
    }
    const from = this.from!;
    const into = this.into;
    // Sixteen bytes a step, as two 8-byte words: a float64 read and written through DataViews
    // keeps its bits, NaNs' included (no arithmetic touches it; the tests copy every kind of
    // NaN), and each access costs what a 4-byte one does: moveRecords' instructions a scored
    // span (about 280 bytes) 2,795 as four 4-byte words a step, 1,663 as two 8-byte ones.
    let i = 0;
    for (; i + 16 <= n; i += 16) {
      const s = start + i;
      const t = at + i;
      into.setFloat64(t, from.getFloat64(s, true), true);
      into.setFloat64(t + 8, from.getFloat64(s + 8, true), true);
    }
    for (; i + 4 <= n; i += 4) into.setInt32(at + i, from.getInt32(start + i, true), true);
    for (; i < n; i++) into.setUint8(at + i, from.getUint8(start + i));
  }
}
