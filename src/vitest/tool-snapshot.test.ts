import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../normalize/tool-call.js';
import { toolSnapshot } from './tool-snapshot.js';

const call = (name: string, args?: unknown, error?: string): ToolCall => ({
  name,
  rawName: name,
  canonicalName: name,
  callId: undefined,
  arguments: args,
  result: undefined,
  status: error ? 'error' : 'ok',
  outcome: error ? 'error' : 'ok',
  error,
  spanId: 'a'.repeat(16),
  startTimeUnixNano: 0n,
  source: 'executed',
  convention: 'gen-ai-execute-tool',
});

const calls = [
  call('search_flights', {
    to: 'NYC',
    from: 'LON',
    requestId: 'r-1',
    when: '2026-11-25T10:00:00Z',
  }),
  call('book_flight', 'LON-NYC-2'),
  call('send_email', { to: 'ana@example.com', body: 'hi' }, 'SMTP down'),
];

describe('toolSnapshot', () => {
  it('writes one call per line, keys sorted, volatile arguments left out (subset)', () => {
    expect(toolSnapshot(calls)).toBe(
      [
        '',
        'search_flights({"from":"LON","to":"NYC"})',
        'book_flight("LON-NYC-2")',
        'send_email({"body":"hi","to":"ana@example.com"}) ✗ SMTP down',
        '',
      ].join('\n'),
    );
  });

  it('marks volatile values with exact, drops arguments with ignore, and masks paths', () => {
    expect(toolSnapshot(calls.slice(0, 1), { args: 'exact' })).toBe(
      '\nsearch_flights({"from":"LON","requestId":"<volatile>","to":"NYC","when":"<volatile>"})\n',
    );
    expect(toolSnapshot(calls, { args: 'ignore' })).toBe(
      '\nsearch_flights()\nbook_flight()\nsend_email() ✗ SMTP down\n',
    );
    expect(toolSnapshot(calls.slice(2), { mask: ['to'] })).toBe(
      '\nsend_email({"body":"hi","to":"<masked>"}) ✗ SMTP down\n',
    );
    expect(toolSnapshot([])).toBe('\n(no tool calls)\n');
    expect(() => toolSnapshot(calls, { args: 'loose' as 'exact' })).toThrow(/args must be/);
  });
});
