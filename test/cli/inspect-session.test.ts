import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

const CAPTURE = join(
  new URL('../fixtures/otlp/', import.meta.url).pathname,
  'captured-langgraph-1.7.3-openinference-4.1.1-sessions.otlp.json',
);

interface InspectedJson {
  traceId: string;
  sessionId: string | null;
  sessionIdAttribute: string | null;
  turn?: number;
  toolCalls: Array<{ name: string }>;
}

/**
 * `spanscore inspect --session` on LangGraph's conversations (captures/session-scenarios.ts,
 * a MemorySaver thread per conversation, recorded by OpenInference as session.id).
 */
describe('spanscore inspect --session', () => {
  it('--format json: the session’s traces in turn order, each with its turn and calls', async () => {
    const { code, stdout } = await runCli([
      'inspect',
      CAPTURE,
      '--session',
      'conv-repeated-lookup',
      '--format',
      'json',
    ]);
    expect(code).toBe(0);
    const turns = stdout
      .trim()
      .split('\n')
      .map(line => JSON.parse(line) as InspectedJson);
    expect(turns.map(t => [t.turn, t.sessionId, t.sessionIdAttribute])).toEqual([
      [0, 'conv-repeated-lookup', 'session.id'],
      [1, 'conv-repeated-lookup', 'session.id'],
      [2, 'conv-repeated-lookup', 'session.id'],
    ]);
    expect(turns.map(t => t.toolCalls.map(c => c.name))).toEqual([
      ['lookup_order'],
      ['lookup_order'],
      ['lookup_order'],
    ]);
  });

  it('table: says the session and its turns; every trace says its session without --session', async () => {
    const one = await runCli([
      'inspect',
      CAPTURE,
      '--session',
      'conv-verify-then-refund',
      '--format',
      'table',
    ]);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(
      /^session conv-verify-then-refund: 2 turn\(s\), in the order they started\n/,
    );
    expect(one.stdout).toMatch(/\nturn 1: trace [0-9a-f]{32}: /);
    expect(one.stdout).toMatch(/\nturn 2: trace [0-9a-f]{32}: /);
    expect(one.stdout).toContain('  session        conv-verify-then-refund (session.id)');
    const all = await runCli(['inspect', CAPTURE, '--format', 'json']);
    const sessions = all.stdout
      .trim()
      .split('\n')
      .map(line => (JSON.parse(line) as InspectedJson).sessionId);
    expect(sessions).toHaveLength(8);
    expect(new Set(sessions)).toEqual(
      new Set([
        'conv-verify-then-refund',
        'conv-refund-before-verify',
        'conv-repeated-lookup',
        'conv-one-turn',
      ]),
    );
  });

  it('exits 2 naming a session the inputs do not hold, and where ids were read', async () => {
    const { code, stderr } = await runCli(['inspect', CAPTURE, '--session', 'nope']);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'spanscore: no trace of session "nope" in the inputs (read from spanscore.session.id, gen_ai.conversation.id, session.id',
    );
  });
});
