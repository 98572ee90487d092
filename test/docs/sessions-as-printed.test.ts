import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { generateText, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import type { InlineCode } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunRecord } from '../../src/results/stored-result.js';
import { docPages, markedBlocks, walk } from '../helpers/markdown-docs.js';
import { useProcessFixtures } from '../helpers/process-fixtures.js';
import { waitFor } from '../helpers/redis.js';

/**
 * docs/sessions.md as printed, on the Vercel AI SDK: its session test cases (the suite block, taken
 * from the page, not copied) loaded by the built `spanscore serve` (memory driver, the default
 * `sessions.idleMs` of 10 minutes), and real AI SDK conversations exported to it over OTLP by the
 * OpenTelemetry SDK: each user turn one `generateText` (the mock model scripted to call the tools)
 * with `experimental_telemetry.metadata` naming the conversation (`sessionId`), the test case
 * (`testCaseId`) and, on the last turn, the end (`sessionEnd`, from the page's end marker table).
 * Each session is scored at once, with the results the page promises.
 */
const { run } = useProcessFixtures();
const page = docPages().find(p => p.file === 'docs/sessions.md')!;

/** The page's session suite: the block marked `<!-- suite -->` whose cases are sessions. */
function printedSuite(): string {
  const blocks = markedBlocks(page, /^<!-- suite -->$/).filter(b => /session: true/.test(b.code));
  expect(blocks.map(b => b.where)).toHaveLength(1);
  return blocks[0]!.code;
}

/** The inline code of the page's paragraph that contains `words`, in order, whitespace folded. */
function printedCode(words: string): string[] {
  for (const { node } of walk(page.tree))
    if (node.type === 'paragraph' && toString(node).replace(/\s+/g, ' ').includes(words))
      return node.children
        .filter((c): c is InlineCode => c.type === 'inlineCode')
        .map(c => c.value.replace(/\s+/g, ' '));
  throw new Error(`docs/sessions.md has no paragraph with "${words}"`);
}

/** The AI SDK's end marker as the page's end-marker table names it (`ai.telemetry.metadata.<key>`). */
function printedAiSdkEndKey(): string {
  const rows = page.text.split('\n').filter(l => l.startsWith('| `ai.telemetry.metadata.'));
  const ends = rows
    .map(l => /^\| `ai\.telemetry\.metadata\.(\w+)`/.exec(l)?.[1])
    .filter(k => k !== undefined && k !== 'sessionId');
  expect(ends).toHaveLength(1);
  return ends[0]!;
}

type Call = { name: 'lookup_order' | 'verify_identity' | 'issue_refund'; input: object };

/**
 * The AI SDK's mock model scripted for one turn: one step per call (each asking for the tool),
 * then an answer.
 */
function scriptedModel(calls: Call[]): MockLanguageModelV2 {
  let step = 0;
  const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
  return new MockLanguageModelV2({
    doGenerate: () => {
      const call = calls[step++];
      return Promise.resolve(
        call
          ? {
              content: [
                {
                  type: 'tool-call' as const,
                  toolCallId: `call_${step}_${call.name}`,
                  toolName: call.name,
                  input: JSON.stringify(call.input),
                },
              ],
              finishReason: 'tool-calls' as const,
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text' as const, text: 'Done.' }],
              finishReason: 'stop' as const,
              usage,
              warnings: [],
            },
      );
    },
  });
}

const tools = {
  lookup_order: tool({
    description: 'Look an order up',
    inputSchema: z.object({ order: z.string() }),
    execute: ({ order }) => Promise.resolve({ order, status: 'delivered' }),
  }),
  verify_identity: tool({
    description: "Verify the customer's identity",
    inputSchema: z.object({ dateOfBirth: z.string() }),
    execute: ({ dateOfBirth }) => Promise.resolve({ verified: dateOfBirth === '1990-01-01' }),
  }),
  issue_refund: tool({
    description: 'Refund an order',
    inputSchema: z.object({ order: z.string() }),
    execute: ({ order }) => Promise.resolve({ refundId: `R-${order}` }),
  }),
};

const lookup: Call = { name: 'lookup_order', input: { order: 'A1' } };
const verify: Call = { name: 'verify_identity', input: { dateOfBirth: '1990-01-01' } };
const refund: Call = { name: 'issue_refund', input: { order: 'A1' } };

describe('docs/sessions.md as printed, on the Vercel AI SDK', () => {
  it('scores each conversation at once when its last turn says so, as the page promises', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spanscore-sessions-doc-'));
    const suiteFile = join(dir, 'support.yaml');
    const suiteText = printedSuite();
    writeFileSync(suiteFile, suiteText);
    const suite = parse(suiteText) as { name: string; testCases: Array<{ id: string }> };
    const ids = suite.testCases.map(c => c.id);
    expect(ids).toEqual(['refund-conversation', 'refund-anywhere']);
    const endKey = printedAiSdkEndKey();

    const serve = run(['serve', '--port', '0', '--host', '127.0.0.1', '--suite', suiteFile], {
      SPANSCORE_SETTLE_MS: '200',
    });
    const url = (await serve.waitForLine(/listening on (\S+) \(memory driver\)/))[1]!;
    const origin = new URL(url).origin;
    expect(serve.stderr()).toContain(`suite "${suite.name}"`);

    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'support-agent' }),
      // The batch processor, as the Node SDK's default, flushed after each turn: a turn's trace
      // reaches serve whole, in one export (span by span, a loaded host could space a trace's
      // spans past the short settle this test runs with, and score a turn without its root).
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
    });
    const tracer = provider.getTracer('ai');
    /** A conversation: one generateText per user turn, the last one saying it ends. */
    const converse = async (sessionId: string, testCaseId: string, turns: Call[][]) => {
      const messages: ModelMessage[] = [];
      for (const [i, calls] of turns.entries()) {
        messages.push({ role: 'user', content: `message ${i + 1}` });
        const result = await generateText({
          model: scriptedModel(calls),
          messages,
          tools,
          stopWhen: ({ steps }) => steps.length > calls.length,
          experimental_telemetry: {
            isEnabled: true,
            tracer,
            metadata: {
              sessionId,
              testCaseId,
              ...(i === turns.length - 1 && { [endKey]: true }),
            },
          },
        });
        messages.push(...result.response.messages);
        await provider.forceFlush();
      }
    };
    const session = async (id: string) => {
      const response = await fetch(`${origin}/api/v1/sessions/${id}`);
      return response.status === 200 ? ((await response.json()) as RunRecord) : undefined;
    };
    const verdicts = (record: RunRecord) =>
      Object.fromEntries(record.results.map(r => [r.scorer, r.label]));

    try {
      await converse('conv-1', 'refund-conversation', [[lookup], [verify, refund]]);
      await converse('conv-2', 'refund-conversation', [[lookup, refund], [verify]]);
      await converse('conv-3', 'refund-anywhere', [[lookup], [verify, refund]]);
      // With sessions.idleMs at its 10 minutes, a session scored now was scored on its end marker.
      for (const id of ['conv-1', 'conv-2', 'conv-3'])
        await waitFor(async () => (await session(id)) !== undefined, `${id} scored`, 20_000);

      const kept = (await session('conv-1'))!;
      expect(kept).toMatchObject({
        traceId: 'session:conv-1',
        state: 'scored',
        matched: [`${suite.name} / refund-conversation`],
      });
      expect(kept.session?.traceIds).toHaveLength(2);
      expect(kept.toolCalls.map(c => [c.name, c.turn])).toEqual([
        ['lookup_order', 0],
        ['verify_identity', 1],
        ['issue_refund', 1],
      ]);
      expect(verdicts(kept)).toEqual({ tool_trajectory: 'pass', tool_loops: 'pass' });

      // The failure the page prints, naming the turn: the refund came in turn 1.
      const broken = (await session('conv-2'))!;
      const trajectory = broken.results.find(r => r.scorer === 'tool_trajectory')!;
      const [printedReason] = printedCode('a failing reason names the part').filter(c =>
        c.startsWith('turn 2:'),
      );
      expect(printedReason).toBeDefined();
      expect([trajectory.label, trajectory.reason, trajectory.failingTurn]).toEqual([
        'fail',
        printedReason,
        2,
      ]);

      const anywhere = (await session('conv-3'))!;
      expect(anywhere.matched).toEqual([`${suite.name} / refund-anywhere`]);
      expect(verdicts(anywhere)).toEqual({ tool_trajectory: 'pass', tool_loops: 'pass' });

      // Each turn's own record: its test case not scored on it alone (tool health is, on the
      // turn's own calls), its calls shown, and the last one says it ended the session.
      const last = kept.session!.traceIds[1]!;
      const turn = (await (await fetch(`${origin}/api/v1/traces/${last}`)).json()) as RunRecord;
      expect([turn.state, turn.matched]).toEqual(['scored', ['rule:tool-health']]);
      expect(turn.toolCalls.map(c => c.name)).toEqual(['verify_identity', 'issue_refund']);
      expect(turn.reason).toBe(
        `a turn of session test case ${suite.name} / refund-conversation: scored with its session: at once, this turn marks the end (ai.telemetry.metadata.${endKey})`,
      );
    } finally {
      await provider.shutdown();
      context.disable();
    }
  });
});
