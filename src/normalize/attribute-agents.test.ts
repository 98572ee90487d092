import { describe, expect, it } from 'vitest';
import { agentTrace, teamTrace } from '../../test/helpers/trace-builder.js';
import { handoffTarget } from './handoff-target.js';
import type { ToolCall } from './tool-call.js';

const call = (rawName: string, fields: Partial<ToolCall> = {}): ToolCall => ({
  name: rawName,
  rawName,
  canonicalName: rawName,
  callId: undefined,
  arguments: undefined,
  result: undefined,
  status: 'ok',
  outcome: 'ok',
  error: undefined,
  spanId: 'b000000000000001',
  startTimeUnixNano: 0n,
  source: 'executed',
  convention: 'gen-ai-execute-tool',
  ...fields,
});

describe('handoffTarget', () => {
  const agents = new Set(['triage', 'billing']);
  it.each<[string, ToolCall, string | undefined]>([
    ['OpenAI Agents SDK and LangGraph', call('transfer_to_billing'), 'billing'],
    ['a LangGraph worker returning', call('transfer_back_to_triage'), 'triage'],
    ['a tool that is no handoff', call('transfer_to_savings'), undefined],
    ['ADK, Python', call('transfer_to_agent', { arguments: { agent_name: 'billing' } }), 'billing'],
    [
      'ADK, TypeScript',
      call('transfer_to_agent', { arguments: { agentName: 'billing' } }),
      'billing',
    ],
    ['Mastra sub-agent', call('agent-billing'), 'billing'],
    ['VoltAgent', call('delegate_task', { arguments: { targetAgents: ['billing'] } }), 'billing'],
    [
      'VoltAgent, unknown agent',
      call('delegate_task', { arguments: { targetAgents: ['x'] } }),
      undefined,
    ],
    [
      'OpenInference bridge',
      call('handoff_to_billing', { result: '{"to_agent":"billing"}' }),
      'billing',
    ],
  ])('%s', (_what, c, target) => {
    expect(handoffTarget(c, agents)).toBe(target);
  });
});

describe('attributeAgents, through normalizeTrace', () => {
  it('gives each call the nearest enclosing agent, and the route its handoffs', () => {
    const trace = teamTrace([
      { agent: 'triage', calls: ['lookup_faq'], handoffTo: 'billing' },
      { agent: 'billing', calls: ['issue_refund'], handoffTo: 'triage' },
      { agent: 'triage', calls: ['lookup_faq'] },
    ]);
    expect(trace.toolSequence.map(c => [c.name, c.agent])).toEqual([
      ['lookup_faq', 'triage'],
      ['issue_refund', 'billing'],
      ['lookup_faq', 'triage'],
    ]);
    expect(trace.toolsUsed).toEqual(['lookup_faq', 'issue_refund']);
    expect(trace.handoffs.map(h => [h.from, h.to])).toEqual([
      ['triage', 'billing'],
      ['billing', 'triage'],
    ]);
    expect(trace.agents.map(t => [t.agent, t.handoff?.from])).toEqual([
      ['triage', undefined],
      ['billing', 'triage'],
      ['triage', 'billing'],
    ]);
  });

  it('keeps a single agent trace as it was: its calls, no handoffs', () => {
    const trace = agentTrace(['transfer_to_billing', 'lookup']);
    // The root is an unnamed invoke_agent span: no agent called billing, so no handoff.
    expect(trace.toolsUsed).toEqual(['transfer_to_billing', 'lookup']);
    expect(trace.handoffs).toEqual([]);
  });
});
