import { trace as otelTrace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { traced } from '../capture/traced.js';
import { createOpenAiJudge } from '../judge/openai-judge.js';
import { defineScorer } from '../score/define-scorer.js';
import { createToolCallAppropriatenessScorer } from '../score/llm/tool-call-appropriateness.js';
import {
  judgeAnswer,
  startOpenAiCompatibleServer,
  type OpenAiCompatibleServer,
} from '../../test/helpers/openai-compatible-server.js';
import { captureTrace } from './index.js';

const searchFlights = traced('searchFlights', (q: { from: string; to: string; day?: string }) => [
  `${q.from}-${q.to}`,
]);
const bookFlight = traced('book_flight', (flight: string) => ({ booked: flight }));
const sendEmail = traced('functions.send_email', (to: string) => `sent to ${to}`);

const agent = () =>
  captureTrace(
    () => {
      const [flight] = searchFlights({ from: 'LHR', to: 'CDG', day: 'mon' });
      bookFlight(flight!);
      searchFlights({ from: 'CDG', to: 'LHR' });
      return sendEmail('ana@example.com');
    },
    { aliases: { reserve_flight: 'book_flight' } },
  );

/** The message of the assertion error `fn` throws. */
function failure(fn: () => void): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the assertion to fail');
}

async function asyncFailure(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the assertion to fail');
}

const strip = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

describe('toHaveUsedTools', () => {
  it('passes on the same set of tools after normalization and aliases, in any order', async () => {
    const run = await agent();
    expect(run).toHaveUsedTools(['send_email', 'search_flights', 'bookFlight']);
    expect(run).toHaveUsedTools(['search-flights', 'reserve_flight', 'sendEmail']);
    expect(run).not.toHaveUsedTools(['search_flights', 'book_flight']);
  });

  it('fails naming the expected and the actual tools, what is missing and extra, with a diff', async () => {
    const run = await agent();
    const message = strip(failure(() => expect(run).toHaveUsedTools(['search_flights', 'cancel'])));
    expect(message).toContain('Expected the tools used to be exactly (as a set):');
    expect(message).toMatch(/Expected: +search_flights, cancel\n/);
    expect(message).toMatch(/Tools used: +searchFlights, book_flight, send_email\n/);
    expect(message).toContain('missing cancel; unexpected book_flight, send_email');
    expect(message).toContain(
      'Tool sequence: searchFlights({"from":"LHR","to":"CDG","day":"mon"}) → book_flight("LHR-CDG") → searchFlights({"from":"CDG","to":"LHR"}) → send_email("ana@example.com")',
    );
    expect(message).toContain('- Expected');
    expect(message).toContain('+ Received');
    expect(message).toMatch(/-\s+"cancel"/);
  });

  it('fails under .not when the tools are exactly those', async () => {
    const run = await agent();
    const message = strip(
      failure(() =>
        expect(run).not.toHaveUsedTools(['search_flights', 'book_flight', 'send_email']),
      ),
    );
    expect(message).toContain('Expected the tools used not to be exactly (as a set):');
  });

  it('refuses what is not a trace, with the matcher named', () => {
    expect(() => expect({ spans: [] }).toHaveUsedTools(['a'])).toThrow(
      'toHaveUsedTools: expected a trace from captureTrace() (or a NormalizedTrace), got an object without a traceId',
    );
    // A partial trace never reaches a scorer: what it lacks is named.
    const partial = { traceId: 'a'.repeat(32), spans: [], toolSequence: [], toolsUsed: [] };
    expect(() => expect(partial).toHaveCalledTool('a')).toThrow(
      'toHaveCalledTool: expected a trace from captureTrace() (or a NormalizedTrace), got an object without agents, handoffs',
    );
    expect(() => expect('trace').toHaveRoutedTo(['a'])).toThrow(
      'toHaveRoutedTo: expected a trace from captureTrace() (or a NormalizedTrace), got string',
    );
  });
});

describe('toHaveCalledTool', () => {
  it('finds a call by normalized name, with arguments as a deep subset', async () => {
    const run = await agent();
    expect(run).toHaveCalledTool('search_flights');
    expect(run).toHaveCalledTool('searchFlights', { to: 'CDG' });
    expect(run).toHaveCalledTool('search_flights', { from: 'CDG', to: 'LHR' });
    expect(run).not.toHaveCalledTool('search_flights', { to: 'JFK' });
    expect(run).not.toHaveCalledTool('cancel_booking');
  });

  it('fails with the expected call and the actual calls with their arguments', async () => {
    const run = await agent();
    const message = strip(
      failure(() => expect(run).toHaveCalledTool('search_flights', { to: 'JFK' })),
    );
    expect(message).toContain(
      'Expected a call of search_flights({"to":"JFK"}) (arguments as a subset):',
    );
    expect(message).toMatch(/Tools called: +searchFlights, book_flight, searchFlights, send_email/);
    expect(message).toContain('searchFlights({"from":"LHR","to":"CDG","day":"mon"})');
    expect(message).toContain(
      '2 calls of search_flights, none with arguments containing {"to":"JFK"}: searchFlights({"from":"LHR","to":"CDG","day":"mon"}) → searchFlights({"from":"CDG","to":"LHR"})',
    );
    expect(strip(failure(() => expect(run).toHaveCalledTool('cancel')))).toContain(
      'cancel was never called',
    );
    const not = strip(failure(() => expect(run).not.toHaveCalledTool('book_flight')));
    expect(not).toContain('Expected no call of book_flight');
    expect(not).toContain('matching call: book_flight("LHR-CDG")');
  });
});

describe('toHaveCalledToolsInOrder', () => {
  it('matches the exact sequence by default, or a subsequence', async () => {
    const run = await agent();
    expect(run).toHaveCalledToolsInOrder([
      'search_flights',
      { name: 'book_flight', args: 'LHR-CDG' },
      'search_flights',
      'send_email',
    ]);
    expect(run).not.toHaveCalledToolsInOrder(['search_flights', 'book_flight', 'send_email']);
    expect(run).toHaveCalledToolsInOrder(['search_flights', 'book_flight', 'send_email'], {
      match: 'subsequence',
    });
    expect(run).not.toHaveCalledToolsInOrder(['book_flight', 'search_flights', 'search_flights'], {
      match: 'subsequence',
    });
    expect(run).toHaveCalledToolsInOrder([{ name: 'search_flights', args: { to: 'CDG' } }], {
      match: 'subsequence',
    });
  });

  it('fails with both sequences and a line diff', async () => {
    const run = await agent();
    const message = strip(
      failure(() => expect(run).toHaveCalledToolsInOrder(['search_flights', 'send_email'])),
    );
    expect(message).toContain('Expected the calls exactly, in this order:');
    expect(message).toMatch(/Expected: +search_flights, send_email\n/);
    expect(message).toMatch(/Calls: +searchFlights, book_flight, searchFlights, send_email\n/);
    expect(message).toMatch(/\+\s+"book_flight"/);
  });

  it('says what is wrong with a bad expectation', async () => {
    const run = await agent();
    expect(() => expect(run).toHaveCalledToolsInOrder([42 as never])).toThrow(
      'toHaveCalledToolsInOrder: calls[0] is neither a name nor { name, args?, agent? }',
    );
    expect(() => expect(run).toHaveCalledToolsInOrder(['a'], { match: 'sorted' as never })).toThrow(
      `match must be 'exact' or 'subsequence', got "sorted"`,
    );
  });
});

describe('toPassScorer', () => {
  let server: OpenAiCompatibleServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('gives a custom scorer the whole captured trace: its spans, root and service', async () => {
    const run = await agent();
    const seen: Array<[number, boolean, string]> = [];
    const spansSeen = defineScorer({
      name: 'spans_seen',
      score: trace => {
        seen.push([trace.spans.length, trace.root !== undefined, typeof trace.serviceName]);
        return trace.spans.length > 0;
      },
    });
    await expect(run).toPassScorer(spansSeen);
    // captureTrace's root span and the agent's four traced calls.
    expect(seen).toEqual([[5, true, 'string']]);
  });

  it('runs a built-in scorer by name against a test case', async () => {
    const run = await agent();
    await expect(run).toPassScorer('tool_trajectory', {
      expectedCalls: [{ name: 'search_flights', args: { to: 'CDG' } }, { name: 'book_flight' }],
    });
    const message = strip(
      await asyncFailure(() =>
        expect(run).toPassScorer(
          'tool_trajectory',
          { expectedCalls: [{ name: 'book_flight' }, { name: 'search_flights' }] },
          { match: 'exact' },
        ),
      ),
    );
    expect(message).toContain('Expected tool_trajectory to pass; it gave fail (score 0)');
    expect(message).toMatch(/Expected: +book_flight, search_flights\n/);
    expect(message).toMatch(/Calls: +searchFlights, book_flight, searchFlights, send_email/);
  });

  it('runs a custom scorer and shows its explanation', async () => {
    const run = await agent();
    const fewCalls = defineScorer({
      name: 'few_calls',
      score: trace => ({
        score: trace.toolSequence.length <= 3 ? 1 : 0,
        reason: `${trace.toolSequence.length} calls, at most 3 wanted`,
      }),
    });
    const message = strip(await asyncFailure(() => expect(run).toPassScorer(fewCalls)));
    expect(message).toContain('Expected few_calls to pass; it gave fail (score 0)');
    expect(message).toContain('4 calls, at most 3 wanted');
  });

  it('runs an LLM scorer through the real openai client and shows the judge’s reason', async () => {
    server = await startOpenAiCompatibleServer([
      judgeAnswer({
        evaluations: [
          { toolCalled: 'searchFlights', wasAppropriate: true, reasoning: 'asked for flights' },
          { toolCalled: 'book_flight', wasAppropriate: false, reasoning: 'nobody asked to book' },
          { toolCalled: 'searchFlights', wasAppropriate: true, reasoning: 'return flight' },
          { toolCalled: 'send_email', wasAppropriate: false, reasoning: 'no email requested' },
        ],
        missingTools: [],
        clarificationWasAppropriate: false,
        reason: 'The agent booked and emailed without being asked.',
      }),
    ]);
    const judge = createOpenAiJudge({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 });
    const scorer = createToolCallAppropriatenessScorer(judge, 'judge-model');
    const run = await agent();
    const message = strip(
      await asyncFailure(() =>
        expect(run).toPassScorer(scorer, { input: 'Find me flights to Paris and back' }),
      ),
    );
    expect(message).toContain(
      'Expected tool_call_appropriateness to pass; it gave fail (score 0.5)',
    );
    expect(message).toContain('The agent booked and emailed without being asked.');
    expect(JSON.stringify(server.requests[0])).toContain('Find me flights to Paris and back');
  });

  it('does not pass a skipped result, and names unknown built-ins', async () => {
    const run = await agent();
    const message = strip(await asyncFailure(() => expect(run).toPassScorer('tool_correctness')));
    expect(message).toContain('Expected tool_correctness to pass; it gave skipped');
    expect(message).toContain('no expectedTools for this test case');
    await expect(expect(run).toPassScorer('tool_corectness')).rejects.toThrow(
      'toPassScorer: no built-in scorer named "tool_corectness" (built-ins: tool_call_accuracy, tool_correctness,',
    );
  });
});

describe('repeated runs: captureTrace.repeat and { minPassRate }', () => {
  /** An agent that searches before booking on every run but those listed as flaky. */
  const flaky = (skipSearchOn: number[]) => (run: number) => {
    const [flight] = skipSearchOn.includes(run)
      ? ['LHR-CDG']
      : searchFlights({ from: 'LHR', to: 'CDG' });
    return bookFlight(flight!);
  };

  it('captures each run in a trace of its own, in order, passing the run index', async () => {
    const seen: number[] = [];
    const runs = await captureTrace.repeat(3, run => {
      seen.push(run);
      return flaky([1])(run);
    });
    expect(seen).toEqual([0, 1, 2]);
    expect(runs.map(r => r.toolNames)).toEqual([
      ['searchFlights', 'book_flight'],
      ['book_flight'],
      ['searchFlights', 'book_flight'],
    ]);
    expect(new Set(runs.map(r => r.traceId)).size).toBe(3);
    await expect(captureTrace.repeat(0, () => 1)).rejects.toThrow(/positive whole number/);
  });

  it('passes when enough runs pass, and lists every run with the pass rate when not', async () => {
    const runs = await captureTrace.repeat(5, flaky([1, 3]));
    expect(runs).toHaveUsedTools(['search_flights', 'book_flight'], { minPassRate: 0.6 });
    expect(runs).toHaveCalledTool('search_flights', { to: 'CDG' }, { minPassRate: 0.6 });
    expect(runs).toHaveCalledToolsInOrder(['search_flights', 'book_flight'], {
      minPassRate: 0.6,
    });
    await expect(runs).toPassScorer(
      'tool_correctness',
      { expectedTools: ['search_flights', 'book_flight'] },
      {},
      { minPassRate: 0.6 },
    );
    const message = strip(
      failure(() => expect(runs).toHaveUsedTools(['search_flights', 'book_flight'])),
    );
    expect(message).toContain(
      'Expected every one of the 5 runs to pass; 3 passed (60%, 95% interval 23%–88%).',
    );
    expect(message).toContain(
      'run 1 ✓  searchFlights({"from":"LHR","to":"CDG"}) → book_flight("LHR-CDG")',
    );
    expect(message).toContain('run 2 ✗  book_flight("LHR-CDG")');
    expect(message).toContain('run 4 ✗  book_flight("LHR-CDG")');
    const scorerMessage = strip(
      await asyncFailure(() =>
        expect(runs).toPassScorer(
          'tool_correctness',
          { expectedTools: ['search_flights', 'book_flight'] },
          {},
          { minPassRate: 0.8 },
        ),
      ),
    );
    expect(scorerMessage).toContain('Expected at least 80% of the 5 runs to pass; 3 passed');
  });

  it('negates on the pass rate, and refuses a pass rate without several runs', async () => {
    const runs = await captureTrace.repeat(4, flaky([0, 1, 2]));
    expect(runs).not.toHaveUsedTools(['search_flights', 'book_flight'], { minPassRate: 0.5 });
    const single = await captureTrace(() => flaky([])(0));
    expect(() => expect(single).toHaveUsedTools(['book_flight'], { minPassRate: 0.5 })).toThrow(
      /minPassRate needs several runs/,
    );
    expect(() => expect(runs).toHaveUsedTools(['book_flight'], { minPassRate: 2 })).toThrow(
      /minPassRate must be a number from 0 to 1/,
    );
    expect(() => expect([]).toHaveUsedTools(['book_flight'])).toThrow(/at least one run/);
  });
});

describe('tool snapshots: toMatchToolSnapshot and toMatchInlineToolSnapshot', () => {
  it('stores the tool sequence in vitest’s snapshot file, one call per line', async () => {
    const run = await agent();
    expect(run).toMatchToolSnapshot();
    expect(run).toMatchToolSnapshot({ args: 'ignore' });
  });

  it('stores it inline, as vitest does, options first', async () => {
    const run = await agent();
    expect(run).toMatchInlineToolSnapshot(
      { args: 'ignore' },
      `
      "
      searchFlights()
      book_flight()
      searchFlights()
      send_email()
      "
    `,
    );
    // A mismatch, a new snapshot and \`vitest -u\` are vitest's own: test/package runs them
    // against the packed package, where a failing run does not fail this suite.
  });
});

describe('agents: toHaveCalledTool({ agent }) and toHaveRoutedTo', () => {
  const lookupOrder = traced('lookup_order', (id: string) => ({ id, charged: [20, 20] }));
  const issueRefund = traced('issue_refund', (id: string) => ({ refund: `R-${id}` }));
  const transferToBilling = traced('transfer_to_billing', () => 'billing');
  /** A triage agent handing a refund to billing, as GenAI `invoke_agent` spans. */
  const inAgent = <T>(name: string, fn: () => T): T =>
    otelTrace
      .getTracer('team')
      .startActiveSpan(
        `invoke_agent ${name}`,
        { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': name } },
        span => {
          const out = fn();
          span.end();
          return out;
        },
      );
  const team = () =>
    captureTrace(() => {
      inAgent('triage', () => transferToBilling());
      return inAgent('billing', () => {
        lookupOrder('42');
        return issueRefund('42');
      });
    });

  it('passes for the agent that made the call, and fails naming the one that did', async () => {
    const run = await team();
    expect(run).toHaveCalledTool('issue_refund', { agent: 'billing' });
    expect(run).toHaveCalledTool('issue_refund', { agent: 'billing', args: '42' });
    expect(run).not.toHaveCalledTool('issue_refund', { agent: 'triage' });
    expect(
      strip(failure(() => expect(run).toHaveCalledTool('issue_refund', { agent: 'triage' }))),
    ).toContain('issue_refund was called by billing, not by triage');
    // A trace with no agent spans: the agent cannot be checked, and the message says why.
    const plain = await agent();
    expect(
      strip(failure(() => expect(plain).toHaveCalledTool('book_flight', { agent: 'billing' }))),
    ).toContain(
      'book_flight was called, but the trace records no agents, so the agent (billing) cannot be checked; agent spans are written by',
    );
    expect(run).toHaveCalledToolsInOrder([
      { name: 'lookup_order', agent: 'billing' },
      { name: 'issue_refund', agent: 'billing' },
    ]);
    expect(run).not.toHaveCalledToolsInOrder([
      { name: 'lookup_order', agent: 'triage' },
      { name: 'issue_refund', agent: 'billing' },
    ]);
  });

  it('compares the route, and shows it when it differs', async () => {
    const run = await team();
    expect(run).toHaveRoutedTo(['triage', 'billing']);
    expect(run).toHaveRoutedTo(['billing', 'triage'], { match: 'any_order' });
    const message = strip(failure(() => expect(run).toHaveRoutedTo(['triage', 'sales'])));
    expect(message).toContain('Expected the route to be triage → sales (exact)');
    expect(message).toMatch(/Route: +triage, billing/);
    expect(message).toContain('missing or out of order: sales');
    expect(() => expect(run).toHaveRoutedTo('triage' as never)).toThrow(
      'toHaveRoutedTo: expected an array of agent names',
    );
  });
});
