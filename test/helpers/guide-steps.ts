import type { DocPage } from './markdown-docs.js';
import { walk } from './markdown-docs.js';

/**
 * What a guide asks the reader to do with a code block, from the HTML comment right before it:
 *
 * - `<!-- guide: checkout -->`: get spanscore's checkout and pack it (the test supplies the
 *   packed package instead: it cannot clone "this repository" (a placeholder)).
 * - `<!-- guide: run -->`, `<!-- guide: run, exit N -->`, `<!-- guide: run, expect "TEXT" -->`: run
 *   the shell lines in the reader's folder (a `cd` carries over to the next block); exit 0 (or N);
 *   with `expect`, the output holds TEXT. `until "TEXT"`: the same, run again for a while until
 *   it does, as a reader waits for a result and asks again (only for blocks that change nothing).
 * - `<!-- guide: start, expect "TEXT" -->`: a command that keeps running (a service) until the
 *   reader presses Ctrl-C at the end of the page; TEXT is in its output once it is ready.
 * - `<!-- guide: save FILE -->`: save the block as FILE, in the reader's folder.
 * - `<!-- guide: workflow [FILE] -->`: a GitHub Actions workflow (or a list of its steps): saved
 *   as FILE when named, and its `run` steps run in order, as a runner would.
 * - `<!-- guide: not run (why) -->`: a synopsis, a fragment or an example of another project.
 */
export type GuideStep =
  | { kind: 'checkout'; code: string; where: string }
  | {
      kind: 'run';
      code: string;
      where: string;
      exit: number;
      expect: string | null;
      retry: boolean;
    }
  | { kind: 'start'; code: string; where: string; expect: string }
  | { kind: 'save'; code: string; where: string; file: string }
  | { kind: 'workflow'; code: string; where: string; file: string | null }
  | { kind: 'not run'; code: string; where: string; why: string };

/** Code block languages a reader may be asked to run or save: each needs a marker. */
const ACTIONABLE = new Set(['sh', 'bash', 'js', 'mjs', 'ts', 'yaml', 'yml', 'json']);

/** The steps of a guide page, in order; throws naming a code block without a marker. */
export function guideSteps(page: DocPage): GuideStep[] {
  const steps: GuideStep[] = [];
  let marker: { text: string; line: number } | null = null;
  for (const { node } of walk(page.tree)) {
    if (node.type === 'html') {
      const m = /^<!-- guide: (.+) -->$/.exec(node.value.trim());
      marker = m ? { text: m[1]!, line: node.position?.start.line ?? 0 } : null;
      continue;
    }
    if (node.type !== 'code') {
      if (node.type !== 'text') marker = null;
      continue;
    }
    const where = `${page.file}:${node.position?.start.line}`;
    const lang = node.lang ?? '';
    if (!marker) {
      if (ACTIONABLE.has(lang))
        throw new Error(`${where}: a ${lang} block with no <!-- guide: … --> marker before it`);
      continue;
    }
    steps.push(parseMarker(marker.text, node.value, where));
    marker = null;
  }
  return steps;
}

function parseMarker(text: string, code: string, where: string): GuideStep {
  const expected = /(expect|until) "((?:[^"\\]|\\.)*)"/.exec(text);
  const expect = expected?.[2]?.replace(/\\(.)/g, '$1') ?? null;
  if (text === 'checkout') return { kind: 'checkout', code, where };
  if (text.startsWith('run')) {
    const exit = Number(/exit (\d+)/.exec(text)?.[1] ?? 0);
    return { kind: 'run', code, where, exit, expect, retry: expected?.[1] === 'until' };
  }
  if (text.startsWith('start')) {
    if (expect === null) throw new Error(`${where}: a start marker needs expect "…"`);
    return { kind: 'start', code, where, expect };
  }
  const save = /^save (\S+)$/.exec(text);
  if (save) return { kind: 'save', code, where, file: save[1]! };
  const workflow = /^workflow(?: (\S+))?$/.exec(text);
  if (workflow) return { kind: 'workflow', code, where, file: workflow[1] ?? null };
  const notRun = /^not run \((.+)\)$/.exec(text);
  if (notRun) return { kind: 'not run', code, where, why: notRun[1]! };
  throw new Error(`${where}: unknown guide marker "${text}"`);
}
