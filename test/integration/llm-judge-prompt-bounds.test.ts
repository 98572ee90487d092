import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiJudge } from '../../src/judge/openai-judge.js';
import { createRubricScorer } from '../../src/score/llm/rubric.js';
import { createToolCallAppropriatenessScorer } from '../../src/score/llm/tool-call-appropriateness.js';
import { runScorers } from '../../src/score/run-scorers.js';
import type { Scorer } from '../../src/score/scorer.js';
import type { NormalizedTrace } from '../../src/normalize/normalize-trace.js';
import {
  callLines,
  type ChatRequest,
  judgeAnswer,
  startOpenAiCompatibleServer,
  userMessage,
  verdictPerCall,
  type OpenAiCompatibleServer,
  type ReplyFor,
  type ScriptedReply,
} from '../helpers/openai-compatible-server.js';
import { agentTrace, type CallInput } from '../helpers/trace-builder.js';

const servers: OpenAiCompatibleServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(s => s.close()));
});

async function judged(
  script: Array<ScriptedReply | ReplyFor>,
  scorer: (judge: ReturnType<typeof createOpenAiJudge>) => Scorer<unknown>,
  options: Record<string, unknown>,
  trace: NormalizedTrace,
) {
  const server = await startOpenAiCompatibleServer(script);
  servers.push(server);
  const judge = createOpenAiJudge({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 });
  const s = scorer(judge);
  const [outcome] = await runScorers(
    trace,
    { id: 'tc', scorers: [] },
    [{ scorer: s, options: s.parseOptions(options) }],
    new Map(),
  );
  return { result: outcome!.result, requests: server.requests };
}

// A trace anyone can send: 2,000 calls with 3 KB arguments and results, a 1 MB request, a 1 MB
// answer, 400 offered tools with 2 KB descriptions.
const MB = 'x'.repeat(1_000_000);
const hostileCalls: CallInput[] = Array.from({ length: 2000 }, (_, i) => ({
  name: `tool_${i % 40}`,
  args: { q: 'a'.repeat(3000) },
  result: 'r'.repeat(3000),
}));
const offered = Array.from({ length: 400 }, (_, i) => ({
  name: `tool_${i}`,
  description: 'd'.repeat(2000),
}));

describe('judge prompts are bounded in total, and the result says what the judge did not see', () => {
  it('tool_call_appropriateness: a 14 MB trace reaches the judge as at most 100,000 characters, scored over the calls shown, the cut said', async () => {
    const trace = agentTrace(hostileCalls, { user: MB, answer: MB });
    const { result, requests } = await judged(
      [verdictPerCall],
      judge => createToolCallAppropriatenessScorer(judge, 'judge-model'),
      { availableTools: offered },
      trace,
    );
    expect(requests).toHaveLength(1);
    const user = userMessage(requests[0]!);
    expect(user.length).toBeLessThanOrEqual(100_000);
    const shown = callLines(requests[0]!);
    expect(shown).toBeGreaterThan(0);
    expect(user).toContain(`… ${2000 - shown} more tool calls not shown (of 2000`);
    expect(user).toMatch(/x… \[992000 more characters not shown\]\n<\/user_request>/);
    expect(result).toMatchObject({
      status: 'scored',
      score: 1,
      details: {
        promptCut: { lists: { 'tool calls': { shown, total: 2000 } } },
      },
    });
    const tools = /<available_tools>\n([\s\S]*)\n<\/available_tools>/.exec(user)![1]!.split('\n');
    const toolsShown = tools.length - 1;
    expect(tools.at(-1)).toBe(
      `… ${400 - toolsShown} more offered tools not shown (of 400; the prompt is bounded)`,
    );
    expect(result.status === 'scored' && result.reason).toBe(
      `Every call served the request. (the judge saw part of the trace, its prompt bounded: ${toolsShown} of 400 offered tools shown, ${shown} of 2000 tool calls shown, ${toolsShown + 2 * shown + 2} text(s) cut)`,
    );
  });

  it('rubric: the same trace, arguments cut per call and the calls to what the prompt has room for', async () => {
    const trace = agentTrace(hostileCalls, { user: MB, answer: MB });
    const { result, requests } = await judged(
      [judgeAnswer({ score: 4, explanation: 'Good.' })],
      judge => createRubricScorer(judge, 'judge-model'),
      { criteria: 'Answers the question.' },
      trace,
    );
    expect(requests).toHaveLength(1);
    const user = userMessage(requests[0]!);
    expect(user.length).toBeLessThanOrEqual(100_000);
    const shown = callLines(requests[0]!);
    expect(user).toContain(`… ${2000 - shown} more tool calls not shown (of 2000`);
    expect(result).toMatchObject({
      status: 'scored',
      score: 0.75,
      details: { promptCut: { lists: { 'tool calls': { shown, total: 2000 } } } },
    });
  });

  it('the bound holds as sent: tags in the data, escaped in their block, and the line saying what was left out count too', async () => {
    // Each argument and result is prompt tags within the 2,000-character cut: the backslash each
    // tag gets in its block made the calls block longer than what was measured (104,078 and
    // 106,350 characters sent against the 100,000 bound), and the closing line came on top of the
    // bound (100,006 for plain text).
    const tagged = '<tool_calls '.repeat(166);
    const taggedCalls: CallInput[] = Array.from({ length: 200 }, () => ({
      name: 't',
      args: tagged,
      result: tagged,
    }));
    const plainCalls: CallInput[] = Array.from({ length: 200 }, () => ({
      name: 't',
      args: 'a'.repeat(1990),
      result: 'b'.repeat(1990),
    }));
    type Case = [
      ReplyFor,
      (judge: ReturnType<typeof createOpenAiJudge>) => Scorer<unknown>,
      Record<string, unknown>,
    ];
    const scorers: Case[] = [
      [verdictPerCall, judge => createToolCallAppropriatenessScorer(judge, 'judge-model'), {}],
      [
        () => judgeAnswer({ score: 4, explanation: 'Good.' }),
        judge => createRubricScorer(judge, 'judge-model'),
        { criteria: 'Answers the question.' },
      ],
    ];
    const sent: number[] = [];
    for (const calls of [taggedCalls, plainCalls])
      for (const [reply, scorer, options] of scorers) {
        const { result, requests } = await judged(
          [reply],
          scorer,
          options,
          agentTrace(calls, { user: 'x', answer: 'y' }),
        );
        expect(requests).toHaveLength(1);
        const user = userMessage(requests[0]!);
        sent.push(user.length);
        const shown = callLines(requests[0]!);
        expect(user).toContain(`… ${200 - shown} more tool calls not shown (of 200;`);
        expect(user).not.toMatch(/<tool_calls /);
        expect(result).toMatchObject({
          status: 'scored',
          details: { promptCut: { lists: { 'tool calls': { shown, total: 200 } } } },
        });
      }
    expect(sent.filter(n => n > 100_000)).toEqual([]);
  });

  it('at most 200 calls are shown however short, so the answer of one verdict each stays within what a model can write', async () => {
    const { result, requests } = await judged(
      [verdictPerCall],
      judge => createToolCallAppropriatenessScorer(judge, 'judge-model'),
      {},
      agentTrace(Array.from({ length: 10_000 }, () => 'a')),
    );
    expect(callLines(requests[0]!)).toBe(200);
    expect(userMessage(requests[0]!)).toContain(
      '200. a() -> \n… 9800 more tool calls not shown (of 10000; the prompt is bounded)',
    );
    expect(result).toMatchObject({
      status: 'scored',
      details: {
        promptCut: { textsCut: 0, lists: { 'tool calls': { shown: 200, total: 10_000 } } },
      },
    });
  });

  it('a small trace is sent whole and its result says nothing was cut', async () => {
    const trace = agentTrace([{ name: 'weather', args: { city: 'Paris' } }], {
      user: 'Weather in Paris?',
      answer: 'Sunny.',
    });
    const { result, requests } = await judged(
      [verdictPerCall],
      judge => createToolCallAppropriatenessScorer(judge, 'judge-model'),
      {},
      trace,
    );
    expect(userMessage(requests[0]!)).toContain('1. weather({"city":"Paris"}) -> \n</tool_calls>');
    expect(result).toMatchObject({ status: 'scored', reason: 'Every call served the request.' });
    expect(result.status === 'scored' && 'promptCut' in result.details).toBe(false);
  });
});

describe('tool_call_appropriateness takes one verdict per call, no more and no fewer', () => {
  const one = (wasAppropriate: boolean) =>
    judgeAnswer({
      evaluations: [{ toolCalled: 'a', wasAppropriate, reasoning: 'r' }],
      missingTools: [],
      clarificationWasAppropriate: false,
      reason: 'One verdict.',
    });

  it('one appropriate verdict for three calls is not a score of 1: repaired once, then failed', async () => {
    const { result, requests } = await judged(
      [one(true)],
      judge => createToolCallAppropriatenessScorer(judge, 'judge-model'),
      {},
      agentTrace(['a', 'b', 'c']),
    );
    expect(requests).toHaveLength(2);
    expect((requests[1] as ChatRequest).messages[3]!.content).toBe(
      'That answer is not valid: 1 evaluations for 3 tool calls: give one per call, in order. Answer again with only the JSON object the schema describes.',
    );
    expect(result).toMatchObject({ status: 'failed', errorType: 'SS_JUDGE_INVALID_OUTPUT' });
  });

  it('a verdict for a call that was never made does not score a trace without calls', async () => {
    const { result } = await judged(
      [one(true)],
      judge => createToolCallAppropriatenessScorer(judge, 'judge-model'),
      {},
      agentTrace([]),
    );
    expect(result).toMatchObject({ status: 'failed', errorType: 'SS_JUDGE_INVALID_OUTPUT' });
  });
});
