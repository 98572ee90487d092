import { Document, isMap, isSeq, parseDocument, type Node, type YAMLSeq } from 'yaml';
import { SpanscoreError } from '../errors/spanscore-error.js';
import type { RecordedArgsMode, RecordedCase } from './record-test-cases.js';

/** What a new suite file says besides its cases. */
export interface SuiteHead {
  name: string;
  args: RecordedArgsMode;
  /** Written when given, so that scoring reads the test case ids where recording did. */
  testCaseIdAttributes?: readonly string[];
  /** The suite JSON Schema editors load: a path relative to the written file, or a URL. */
  schema: string;
}

/**
 * The scorers of a recorded suite: the tool set, and every call in order with its arguments; and
 * the route, when a case recorded one.
 */
function scorersOf(args: RecordedArgsMode, cases: readonly RecordedCase[]): unknown[] {
  return [
    'tool_correctness',
    { name: 'tool_trajectory', match: 'exact', args },
    ...(cases.some(c => c.expectedAgents) ? ['agent_routing'] : []),
  ];
}

/** A case as a suite holds it (no recording facts: those go in a comment or `recordedFrom`). */
function caseObject(c: RecordedCase, withRecordedFrom: boolean): Record<string, unknown> {
  return {
    id: c.id,
    ...(c.input !== undefined && { input: c.input }),
    ...(c.turns && { session: true }),
    expectedTools: c.expectedTools,
    ...(c.turns
      ? { turns: c.turns.map(expectedCalls => ({ expectedCalls })) }
      : { expectedCalls: c.expectedCalls }),
    ...(c.expectedAgents && { expectedAgents: c.expectedAgents }),
    ...(withRecordedFrom && {
      recordedFrom: {
        traceId: c.recordedFrom,
        ...(c.leftOut.length && { leftOut: c.leftOut }),
        ...(c.otherTraces && { otherTraces: c.otherTraces }),
      },
    }),
  };
}

/** The comment above a recorded case in YAML. */
function caseComment(c: RecordedCase): string {
  const parts = [` recorded from trace ${c.recordedFrom}`];
  if (c.otherTraces) parts.push(` ${c.otherTraces} more trace(s) of this test case not recorded`);
  if (c.leftOut.length) parts.push(` left out as volatile: ${c.leftOut.join(', ')}`);
  return parts.join('\n');
}

/** Styles a case node: short lists and each expected call on one line. */
function styleCase(node: unknown): void {
  if (!isMap(node)) return;
  const tools = node.get('expectedTools', true);
  if (isSeq(tools)) tools.flow = true;
  const agents = node.get('expectedAgents', true);
  if (isSeq(agents)) agents.flow = true;
  const flowCalls = (calls: unknown): void => {
    if (isSeq(calls)) for (const call of calls.items) if (isMap(call)) call.flow = true;
  };
  flowCalls(node.get('expectedCalls', true));
  const turns = node.get('turns', true);
  if (isSeq(turns))
    for (const turn of turns.items) if (isMap(turn)) flowCalls(turn.get('expectedCalls', true));
}

/** A new YAML suite of the recorded cases, each with a comment naming its trace. */
export function renderSuiteYaml(cases: readonly RecordedCase[], head: SuiteHead): string {
  const doc = new Document({
    name: head.name,
    ...(head.testCaseIdAttributes?.length && {
      testCaseIdAttributes: [...head.testCaseIdAttributes],
    }),
    scorers: scorersOf(head.args, cases),
    testCases: cases.map(c => caseObject(c, false)),
  });
  doc.commentBefore = ` yaml-language-server: $schema=${head.schema}\n Recorded by spanscore suite record: review the expectations before committing them.`;
  const list = doc.get('testCases', true) as YAMLSeq;
  list.items.forEach((item, i) => {
    styleCase(item);
    (item as Node).commentBefore = caseComment(cases[i]!);
  });
  return doc.toString({ lineWidth: 0 });
}

/**
 * One recorded case as a YAML list item, with its comment: what "Copy as test case" puts on the
 * clipboard, ready to paste under a suite's `testCases`.
 */
export function renderCaseYaml(c: RecordedCase): string {
  const doc = new Document([caseObject(c, false)]);
  const item = (doc.contents as YAMLSeq).items[0];
  styleCase(item);
  (item as Node).commentBefore = caseComment(c);
  return doc.toString({ lineWidth: 0 });
}

/** A new JSON suite of the recorded cases; `recordedFrom` names each case's trace. */
export function renderSuiteJson(cases: readonly RecordedCase[], head: SuiteHead): string {
  const suite = {
    $schema: head.schema,
    name: head.name,
    ...(head.testCaseIdAttributes?.length && {
      testCaseIdAttributes: [...head.testCaseIdAttributes],
    }),
    scorers: scorersOf(head.args, cases),
    testCases: cases.map(c => caseObject(c, true)),
  };
  return `${JSON.stringify(suite, null, 2)}\n`;
}

/** What a merge did, by test case id. */
export interface MergeOutcome {
  text: string;
  added: string[];
  updated: string[];
  /** Recorded cases the suite already had and `update` did not name: left as they are. */
  kept: string[];
}

/**
 * Adds the recorded cases the YAML suite lacks at the end of its `testCases`, and re-records those
 * `update` names in place; every other byte of the file stays as it was (comments, order,
 * quoting). Needs `testCases` as a block sequence.
 */
export function mergeSuiteYaml(
  text: string,
  file: string,
  cases: readonly RecordedCase[],
  update: readonly string[],
): MergeOutcome {
  const doc = parseDocument(text);
  if (doc.errors.length)
    throw new SpanscoreError('SS_SUITE_INVALID', `cannot merge: ${doc.errors[0]!.message}`, {
      location: { file },
    });
  const list = doc.get('testCases', true);
  if (!isSeq(list) || list.flow || !list.range)
    throw new SpanscoreError(
      'SS_SUITE_INVALID',
      'cannot merge: testCases must be a block sequence (one "- " item per line)',
      { location: { file, path: 'testCases' } },
    );
  const existing = new Map<string, Node>();
  for (const item of list.items) if (isMap(item)) existing.set(String(item.get('id')), item);
  checkUpdates(update, existing, file);

  // The items' indentation: the column of the first item's "-".
  const first = list.items[0] as Node | undefined;
  const indent = first?.range ? dashColumn(text, first.range[0]) : 2;
  const render = (c: RecordedCase): string =>
    renderCaseYaml(c)
      .split('\n')
      .filter(Boolean)
      .map(line => ' '.repeat(indent) + line)
      .join('\n')
      .concat('\n');

  const outcome: MergeOutcome = { text, added: [], updated: [], kept: [] };
  // Replacements from the end of the file backwards, so earlier offsets stay right.
  const edits: Array<{ start: number; end: number; insert: string }> = [];
  for (const c of cases) {
    const node = existing.get(c.id);
    if (!node) continue;
    if (!update.includes(c.id)) {
      outcome.kept.push(c.id);
      continue;
    }
    const [start, , end] = node.range!;
    edits.push({
      start: recordingCommentStart(text, lineStart(text, start)),
      end: lineEnd(text, end),
      insert: render(c),
    });
    outcome.updated.push(c.id);
  }
  const added = cases.filter(c => !existing.has(c.id));
  if (added.length) {
    const at = lineEnd(text, list.range[1]);
    const before = at > 0 && text[at - 1] !== '\n' ? '\n' : '';
    edits.push({ start: at, end: at, insert: before + added.map(render).join('') });
    outcome.added.push(...added.map(c => c.id));
  }
  let merged = text;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    merged = merged.slice(0, edit.start) + edit.insert + merged.slice(edit.end);
  return { ...outcome, text: merged };
}

/** Adds and re-records cases in a JSON suite (rewritten with two-space indentation). */
export function mergeSuiteJson(
  text: string,
  file: string,
  cases: readonly RecordedCase[],
  update: readonly string[],
): MergeOutcome {
  let suite: { testCases?: Array<Record<string, unknown>> };
  try {
    suite = JSON.parse(text) as typeof suite;
  } catch (error) {
    throw new SpanscoreError('SS_SUITE_INVALID', `cannot merge: ${(error as Error).message}`, {
      location: { file },
    });
  }
  if (!Array.isArray(suite.testCases))
    throw new SpanscoreError('SS_SUITE_INVALID', 'cannot merge: no testCases list', {
      location: { file, path: 'testCases' },
    });
  const outcome: MergeOutcome = { text, added: [], updated: [], kept: [] };
  const index = new Map(suite.testCases.map((c, i) => [String(c.id), i]));
  checkUpdates(update, index, file);
  for (const c of cases) {
    const i = index.get(c.id);
    if (i === undefined) {
      suite.testCases.push(caseObject(c, true));
      outcome.added.push(c.id);
    } else if (update.includes(c.id)) {
      suite.testCases[i] = caseObject(c, true);
      outcome.updated.push(c.id);
    } else outcome.kept.push(c.id);
  }
  return { ...outcome, text: `${JSON.stringify(suite, null, 2)}\n` };
}

/**
 * Where the comment lines right above an item start, when they are a recording's comment (the
 * topmost says "recorded from trace"): re-recording replaces them with the item.
 */
function recordingCommentStart(text: string, itemLineStart: number): number {
  let start = itemLineStart;
  let top = itemLineStart;
  while (top > 0) {
    const previous = lineStart(text, top - 1);
    if (!/^\s*#/.test(text.slice(previous, top))) break;
    top = previous;
    if (/^\s*# recorded from trace /.test(text.slice(top, itemLineStart))) start = top;
  }
  return start;
}

/** `--update` may only name cases the suite has. */
function checkUpdates(
  update: readonly string[],
  suiteCases: { has(id: string): boolean },
  file: string,
): void {
  const missing = update.filter(id => !suiteCases.has(id));
  if (missing.length)
    throw new SpanscoreError(
      'SS_USAGE',
      `--update names test case(s) the suite does not have: ${missing.join(', ')}`,
      { location: { file } },
    );
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The offset after the line holding `offset - 1` (a node's end), newline included. */
function lineEnd(text: string, offset: number): number {
  if (offset > 0 && text[offset - 1] === '\n') return offset;
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline + 1;
}

/** The column of the `-` that starts the sequence item whose value begins at `offset`. */
function dashColumn(text: string, offset: number): number {
  const start = lineStart(text, offset);
  const line = text.slice(start, offset);
  const dash = line.lastIndexOf('-');
  return dash === -1 ? 2 : dash;
}
