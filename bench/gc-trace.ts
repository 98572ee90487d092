/**
 * What V8's garbage collector did in a process, read from its `--trace-gc-nvp` lines (one line a
 * collection, `name=value` pairs, on the process's stdout): the load runs' figures of where the
 * collector's work goes, which follow what a span holds and for how long more than the host's speed.
 *
 * - **promoted bytes**: what scavenges moved to the old generation (`promoted=`), i.e. what lived
 *   through two young collections: spans held while their trace settles, results kept by a store.
 *   Full collections follow it (V8 starts one when the old generation has grown by a share of
 *   what the last left).
 * - **full collections** (`gc=mc`) and the CPU their concurrent marking took on V8's helper
 *   threads (`background.mark=`, ms): a full collection marks everything live, every module's
 *   code and data included, however little of it changed.
 * - **pauses** (`pause=`, ms): the time the collector stopped JavaScript, young and full.
 *
 * Every isolate of the process is counted (the embedded driver's scoring thread and the thread that
 * receives each print their own lines). The line format is V8's own and not a stable interface:
 * a line this does not recognise is skipped, and `lines` says how many were read.
 */
export interface GcFigures {
  /** Collection lines read while counting. */
  lines: number;
  scavenges: number;
  fullCollections: number;
  promotedBytes: number;
  /** CPU ms of concurrent marking on V8's helper threads (full collections). */
  backgroundMarkMs: number;
  /** ms JavaScript was stopped, scavenges and full collections. */
  pauseMs: number;
}

const none = (): GcFigures => ({
  lines: 0,
  scavenges: 0,
  fullCollections: 0,
  promotedBytes: 0,
  backgroundMarkMs: 0,
  pauseMs: 0,
});

/** A `name=value` field of an nvp line, as a number (0 when absent). */
function field(line: string, name: string): number {
  const at = line.indexOf(` ${name}=`);
  if (at < 0) return 0;
  const value = Number.parseFloat(line.slice(at + name.length + 2));
  return Number.isFinite(value) ? value : 0;
}

/**
 * Tallies a process's `--trace-gc-nvp` output between {@link GcTally.start} and
 * {@link GcTally.stop} (a load run counts its load, not start-up). Feed it the stdout chunks as
 * they come; lines split across chunks are joined, and other output is ignored.
 */
export class GcTally {
  #partial = '';
  #counting = false;
  #figures = none();

  /** Starts counting from the next line; anything counted before is dropped. */
  start(): void {
    this.#figures = none();
    this.#counting = true;
  }

  /** Stops counting; {@link GcTally.figures} keeps what was counted. */
  stop(): void {
    this.#counting = false;
  }

  figures(): GcFigures {
    return { ...this.#figures };
  }

  feed(chunk: string): void {
    const text = this.#partial + chunk;
    const lines = text.split('\n');
    this.#partial = lines.pop()!;
    // A line longer than this is not V8's (they are about 2 kB): kept from growing without end.
    if (this.#partial.length > 65_536) this.#partial = '';
    if (this.#counting) for (const line of lines) this.#line(line);
  }

  #line(line: string): void {
    const kind = / gc=(\w+) /.exec(line)?.[1];
    if (kind === undefined) return;
    const f = this.#figures;
    f.lines++;
    f.pauseMs += field(line, 'pause');
    if (kind === 's') {
      f.scavenges++;
      f.promotedBytes += field(line, 'promoted');
    } else if (kind === 'mc') {
      f.fullCollections++;
      f.backgroundMarkMs += field(line, 'background.mark');
    }
  }
}

/** The figures of several processes (a role's), summed. */
export function sumGcFigures(all: readonly GcFigures[]): GcFigures {
  const total = none();
  for (const f of all)
    for (const key of Object.keys(total) as Array<keyof GcFigures>) total[key] += f[key];
  return total;
}
