/**
 * Prints where a V8 CPU profile (`node --cpu-prof`) spent its time: self time per function, top
 * first, with the share of the whole run. Used by `npm run bench -- --profile` to explain the
 * end-to-end figures.
 *
 * `tsx bench/summarize-profile.ts FILE.cpuprofile [TOP]`
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** Self time per function (name, file:line), in ms and as a share of the profile, top first. */
export function summarizeProfile(
  file: string,
  top = 15,
): Array<{ fn: string; ms: number; share: number }> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: ProfileNode[];
    startTime: number;
    endTime: number;
    samples: number[];
  };
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / profile.samples.length;
  const byFn = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url
      ? `${relative(process.cwd(), url.replace('file://', ''))}:${lineNumber + 1}`
      : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    byFn.set(key, (byFn.get(key) ?? 0) + (node.hitCount ?? 0));
  }
  const total = profile.samples.length;
  return [...byFn]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, hits]) => ({ fn, ms: hits * msPerSample, share: hits / total }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top] = process.argv.slice(2);
  for (const row of summarizeProfile(file!, Number(top ?? 15)))
    console.log(`${(row.share * 100).toFixed(1).padStart(5)}%  ${row.fn}`);
}
