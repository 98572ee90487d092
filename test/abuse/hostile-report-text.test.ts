/**
 * Text from traces cannot add structure to any report: a trace whose tool name, arguments and test
 * case id are written to close a CDATA section, open HTML, start a Markdown table row or clear the
 * terminal is scored by the real CLI into every `--format`, and each output is parsed back: the
 * same number of test cases and rows, and the hostile text intact as text (or visibly replaced
 * where the format cannot hold it).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toString } from 'mdast-util-to-string';
import { gfm } from 'micromark-extension-gfm';
import { beforeAll, describe, expect, it } from 'vitest';
import { otlpRequest, spanId, traceId } from '../helpers/otlp-json-builder.js';
import { runCli } from '../helpers/run-cli.js';

// Closes the CDATA section twice (the JUnit writer's dependency escapes only the first `]]>`),
// then writes a passing <testcase> of its own; HTML; a Markdown row; ANSI escapes; a NUL.
const FORGED = '<testcase name="forged › tool_correctness" classname="forged"/>';
const TOOL = `x]]>${FORGED}<system-out><![CDATA[ ]]>${FORGED}<![CDATA[ \u0000\u001b[2J\u001b[31m|| a | b |\n| --- |\n<img src=x onerror=alert(1)>`;
// With what GitHub links in rendered text, escaped or not: a URL, www., e-mail addresses (a
// domain may start with '-' or '.'), a mention, an issue number.
const CASE_ID =
  'case <b>one</b> | *two* `three` [link](http://evil.example) & ~~x~~ www.evil.example a@evil.example b@-evil.example c@.evil.example @octocat #12';

// An OSC 8 hyperlink, a screen clear, a C1 CSI (U+009B) and a right-to-left override (U+202E),
// for the texts `spanscore inspect` prints.
const ESCAPES =
  '\u001b]8;;https://evil.example\u0007CLICK\u001b]8;;\u0007\u001b[2J\u009b31m\u202eevil';
/** What a terminal would act on: C0 and C1 controls, DEL, bidirectional controls. */
const TERMINAL_CONTROL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let dir = '';
let trace = '';
let suite = '';
let inspected = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spanscore-hostile-'));
  trace = join(dir, 'trace.json');
  suite = join(dir, 'suite.yaml');
  writeFileSync(
    trace,
    JSON.stringify(
      otlpRequest([
        {
          traceId: traceId(7),
          spanId: spanId(7, 1),
          name: 'invoke_agent',
          startMs: 0,
          endMs: 100,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'spanscore.test_case.id': CASE_ID,
          },
        },
        {
          traceId: traceId(7),
          spanId: spanId(7, 2),
          parentSpanId: spanId(7, 1),
          name: 'execute_tool',
          startMs: 10,
          endMs: 20,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': TOOL,
            'gen_ai.tool.call.arguments': JSON.stringify({ q: TOOL }),
          },
        },
      ]),
    ),
  );
  inspected = join(dir, 'inspected.json');
  writeFileSync(
    inspected,
    JSON.stringify(
      otlpRequest([
        {
          traceId: traceId(8),
          spanId: spanId(8, 1),
          name: `root ${ESCAPES}`,
          startMs: 0,
          endMs: 100,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': `agent ${ESCAPES}`,
            'spanscore.test_case.id': `case ${ESCAPES}`,
            'gen_ai.tool.definitions': JSON.stringify([
              { type: 'function', name: `offered ${ESCAPES}`, parameters: { type: 'object' } },
            ]),
          },
        },
        {
          traceId: traceId(8),
          spanId: spanId(8, 2),
          parentSpanId: spanId(8, 1),
          name: 'execute_tool',
          startMs: 1,
          endMs: 2,
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': `tool ${ESCAPES}`,
          },
        },
      ]),
    ),
  );
  writeFileSync(
    suite,
    `name: hostile\nscorers: [tool_correctness, tool_call_accuracy]\ntestCases:\n  - id: ${JSON.stringify(CASE_ID)}\n    expectedTools: [get_weather]\n    expectedTool: get_weather\n`,
  );
});

const score = (format: string) => runCli(['score', '--suite', suite, '--format', format, trace]);

describe('hostile text from a trace in every report format', () => {
  it('junit: two test cases, none forged, the tool name intact in the output', async () => {
    const { code, stdout } = await score('junit');
    expect(code).toBe(1);
    expect(XMLValidator.validate(stdout)).toBe(true);
    const parsed = new XMLParser({
      ignoreAttributes: false,
      cdataPropName: '#cdata',
      isArray: name => name === 'testcase' || name === '#cdata',
    }).parse(stdout) as {
      testsuites: {
        testsuite: {
          testcase: Array<{
            '@_name': string;
            'system-out': { '#cdata': string[] };
            failure?: { '@_message': string };
          }>;
        };
      };
    };
    const cases = parsed.testsuites.testsuite.testcase;
    expect(cases.map(c => c['@_name'])).toEqual([
      `${CASE_ID} › tool_correctness`,
      `${CASE_ID} › tool_call_accuracy`,
    ]);
    const out = cases[0]!['system-out']['#cdata'].join('');
    // NUL cannot be in XML: it is replaced, the rest reads back as written.
    // eslint-disable-next-line no-control-regex
    expect(out).toContain(`toolsUsed: ${TOOL.replace(/[\u0000\u001b]/g, '\uFFFD')}`);
    expect(cases.every(c => c.failure)).toBe(true);
  });

  it('markdown: no HTML, link, emphasis or code span comes from the text, and each row keeps its cells', async () => {
    const { stdout } = await score('markdown');
    // As GitHub reads it (GFM: tables, autolink literals, strikethrough).
    const tree = fromMarkdown(stdout, {
      extensions: [gfm()],
      mdastExtensions: [gfmFromMarkdown()],
    });
    const kinds = new Set<string>();
    const html: string[] = [];
    const code: string[] = [];
    const walk = (node: { type: string; value?: string; children?: unknown[] }): void => {
      kinds.add(node.type);
      if (node.type === 'html') html.push(node.value!);
      if (node.type === 'inlineCode') code.push(node.value!);
      for (const child of node.children ?? []) walk(child as typeof node);
    };
    walk(tree);
    for (const kind of ['link', 'emphasis', 'strong', 'image', 'delete'])
      expect(kinds, kind).not.toContain(kind);
    // What GitHub would make a mention or an issue link of, found in the rendered text.
    expect(toString(tree)).not.toMatch(/@[\p{L}\p{N}]|#\p{N}/u);
    // Each result's test case cell reads as the id, but for the zero-width joiners.
    const table = (tree.children as Array<{ type: string; children: unknown[] }>).find(
      n => n.type === 'table',
    )!;
    const firstCells = table.children
      .slice(1)
      .map(row => toString((row as { children: Parameters<typeof toString>[0][] }).children[0]));
    expect(firstCells.map(c => c.replaceAll('\u2060', ''))).toEqual([CASE_ID, CASE_ID]);
    // The report's own code spans: the trace ids.
    expect(code).toEqual([traceId(7), traceId(7)]);
    // The report's own collapsible section is its only HTML.
    expect(html).toEqual([
      '<details><summary>Results that did not pass (2)</summary>',
      '</details>',
    ]);
    const rows = stdout.split('\n').filter(line => line.startsWith('|'));
    const cells = (line: string): number => line.split(/(?<!\\)\|/).length - 2;
    expect(new Set(rows.map(cells)).size).toBe(1);
    expect(stdout).not.toContain('\u001b');
  });

  it('html: the text is escaped wherever it appears', async () => {
    const { stdout } = await score('html');
    expect(stdout).not.toContain('<img src=x');
    expect(stdout).not.toContain('<b>one</b>');
    expect(stdout).not.toContain(FORGED);
    expect(stdout).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });

  it('table: no control character or line of its own reaches the terminal', async () => {
    const { stdout } = await score('table');
    // eslint-disable-next-line no-control-regex
    expect(stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    // Two result rows (each wrapped over lines whose first cell is blank): none added by the
    // text's own newlines and pipes.
    const lines = stdout.trimEnd().split('\n');
    expect(lines.filter(line => line.startsWith('│ case'))).toHaveLength(2);
    expect(lines.filter(line => /^│ \S/.test(line))).toHaveLength(3); // the header too
  });

  it('inspect: no control or bidirectional character of a trace reaches the terminal', async () => {
    const { code, stdout } = await runCli(['inspect', inspected], { tty: true });
    expect(code).toBe(0);
    expect(stdout).not.toMatch(TERMINAL_CONTROL);
    // Each text is shown, its controls replaced, on its own line as printed.
    const shown = ESCAPES.replace(new RegExp(TERMINAL_CONTROL, 'g'), '\uFFFD');
    const lines = stdout.split('\n');
    for (const [start, text] of [
      ['trace ', `root "root ${shown}"`],
      ['  test case ', `case ${shown}`],
      ['  tools offered ', `offered ${shown}`],
      ['  agents ', `agent ${shown}`],
    ] as const)
      expect(
        lines.filter(l => l.startsWith(start) && l.includes(text)),
        start,
      ).toHaveLength(1);
    expect(lines.filter(l => l.includes(`tool ${shown}`))).toHaveLength(1);
  });

  it('json and jsonl: the text round-trips exactly', async () => {
    const json = JSON.parse((await score('json')).stdout) as {
      results: Array<{ testCaseId: string; toolsUsed: string[] }>;
    };
    expect(json.results.map(r => [r.testCaseId, r.toolsUsed])).toEqual([
      [CASE_ID, [TOOL]],
      [CASE_ID, [TOOL]],
    ]);
    const lines = (await score('jsonl')).stdout.trim().split('\n');
    expect(lines.map(l => (JSON.parse(l) as { toolsUsed: string[] }).toolsUsed)).toEqual([
      [TOOL],
      [TOOL],
    ]);
  });
});
