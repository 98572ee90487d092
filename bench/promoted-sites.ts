/**
 * Where a process's promoted bytes were allocated, from a sampling heap profile that kept what
 * full collections took and left out what young collections took (`bench/load/promoted-sampler.mjs`):
 * bytes by allocation site, each sample given to the innermost frame of spanscore's own code on
 * its stack (`dist/` or `src/`), else to its innermost frame. What outlives two young collections
 * is what full collections then mark and sweep: the site says which structure held it that long.
 *
 * `tsx bench/promoted-sites.ts FILE.heapprofile [TOP]`
 */
import { readFileSync } from 'node:fs';

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** A site's bytes in the profile, and its share of them all. */
export interface PromotedSite {
  site: string;
  bytes: number;
  share: number;
}

const OWN_CODE = /\/(dist|src)\//;

function frameName(frame: SamplingNode['callFrame']): string {
  const file = frame.url.replace(/^.*\/(dist|src|node_modules)\//, '$1/') || '(native)';
  // V8's line numbers start at 0.
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

/** The `top` sites by bytes, and the profile's total bytes. */
export function promotedSites(
  profileJson: string,
  top = 15,
): { totalBytes: number; sites: PromotedSite[] } {
  const { head } = JSON.parse(profileJson) as { head: SamplingNode };
  const bySite = new Map<string, number>();
  let totalBytes = 0;
  // Iterative, with the innermost own frame carried down: a deep stack never overflows this one.
  const stack: Array<[SamplingNode, string | undefined]> = [[head, undefined]];
  while (stack.length) {
    const [node, ownAbove] = stack.pop()!;
    const own = OWN_CODE.test(node.callFrame.url) ? frameName(node.callFrame) : ownAbove;
    if (node.selfSize > 0) {
      const site = own ?? frameName(node.callFrame);
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
      totalBytes += node.selfSize;
    }
    for (const child of node.children) stack.push([child, own]);
  }
  const sites = [...bySite]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([site, bytes]) => ({ site, bytes, share: bytes / Math.max(1, totalBytes) }));
  return { totalBytes, sites };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: promoted-sites FILE.heapprofile [TOP]');
    process.exit(2);
  }
  const { totalBytes, sites } = promotedSites(readFileSync(file, 'utf8'), Number(top ?? 15));
  console.log(`${(totalBytes / 1e6).toFixed(1)} MB sampled`);
  for (const s of sites)
    console.log(
      `${(s.share * 100).toFixed(1).padStart(5)}%  ${(s.bytes / 1e6).toFixed(2).padStart(7)} MB  ${s.site}`,
    );
}
