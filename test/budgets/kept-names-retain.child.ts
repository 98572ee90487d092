/**
 * Run by `kept-names-retain.test.ts` in a process of its own (`node --expose-gc --import tsx`):
 * has `JsonTextWriter.name` and `EncodedStrings.of` keep 50 names each, every one trimmed from a
 * string of 1 MB (a tool name in a large body), and prints, as JSON, the heap each cache's names
 * left after a full garbage collection and how many each kept.
 */
import { EncodedStrings } from '../../src/emit/encoded-strings.js';
import { JsonTextWriter } from '../../src/results/json-text-writer.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const used = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const NAMES = 50;
/** A 16-character name trimmed from a flat string of 1 MB: V8 makes it a view of that string. */
function trimmedName(cache: string, i: number): string {
  const body = JSON.parse(
    JSON.stringify(`${cache}_${String(i).padStart(4, '0')}_abc${' '.repeat(1 << 20)}`),
  ) as string;
  return body.trim();
}

const writer = new JsonTextWriter();
const strings = new EncodedStrings();
const writeName = (name: string): string =>
  writer.text(
    name,
    (w, n) => (w.name(n), true),
    n => JSON.stringify(n),
  );
// Code loaded and compiled before measuring.
writeName('warm');
strings.of('warm');

const beforeNames = used();
for (let i = 0; i < NAMES; i++) writeName(trimmedName('name', i));
const namesBytes = used() - beforeNames;

const beforeStrings = used();
for (let i = 0; i < NAMES; i++) strings.of(trimmedName('strs', i));
const stringsBytes = used() - beforeStrings;

console.log(
  JSON.stringify({
    namesKept: JsonTextWriter.namesKept - 1,
    namesBytes,
    stringsKept: strings.size - 1,
    stringsBytes,
  }),
);
process.exit(0);
