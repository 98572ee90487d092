import { describe, expect, it } from 'vitest';
import type { ToolCallFact } from '../score/tool-call-facts.js';
import { toolIncrementer } from './tool-aggregates.js';

function fact(more: Partial<ToolCallFact>): ToolCallFact {
  return {
    service: 'shop',
    version: '1.0',
    agent: 'planner',
    tool: 'search',
    outcome: 'ok',
    durationMs: undefined,
    checked: false,
    invalid: false,
    unknown: false,
    repeated: false,
    ...more,
  };
}

/** The `n` fields a run of facts adds to, in order. */
function callFields(inc: ReturnType<typeof toolIncrementer>, facts: ToolCallFact[]): string[] {
  const out: string[] = [];
  inc(facts, field => {
    if (field.endsWith('\u001fn')) out.push(field);
  });
  return out;
}

const n = (group: string[]): string => `t\u001f${JSON.stringify(group)}\u001fn`;

describe('toolIncrementer', () => {
  it('counts each call under its own service, version, agent and tool as its prefix changes', () => {
    const inc = toolIncrementer({ maxServices: 5, maxToolsPerService: 5 });
    const facts = [
      fact({}),
      fact({ agent: 'coder' }),
      fact({ agent: 'coder', tool: 'edit' }),
      fact({ tool: 'edit' }),
      fact({ version: '2.0', tool: 'edit' }),
      fact({ service: 'cart', version: '2.0', tool: 'edit' }),
    ];
    const expected = [
      n(['shop', '1.0', 'planner', 'search']),
      n(['shop', '1.0', 'coder', 'search']),
      n(['shop', '1.0', 'coder', 'edit']),
      n(['shop', '1.0', 'planner', 'edit']),
      n(['shop', '2.0', 'planner', 'edit']),
      n(['cart', '2.0', 'planner', 'edit']),
    ];
    expect(callFields(inc, facts)).toEqual(expected);
    // The next trace's calls, the same groups again.
    expect(callFields(inc, facts)).toEqual(expected);
  });

  it('counts tools past the bound as other, per service', () => {
    const inc = toolIncrementer({ maxServices: 5, maxToolsPerService: 1 });
    expect(
      callFields(inc, [
        fact({ tool: 'a' }),
        fact({ tool: 'b' }),
        fact({ service: 'cart', tool: 'b' }),
        fact({ tool: 'b' }),
      ]),
    ).toEqual([
      n(['shop', '1.0', 'planner', 'a']),
      n(['shop', '1.0', 'planner', 'other']),
      n(['cart', '1.0', 'planner', 'b']),
      n(['shop', '1.0', 'planner', 'other']),
    ]);
  });

  it('names the same fields after more groups than it holds', () => {
    const inc = toolIncrementer({ maxServices: 200, maxToolsPerService: 200 });
    const facts: ToolCallFact[] = [];
    for (let s = 0; s < 120; s++)
      for (let t = 0; t < 100; t++) facts.push(fact({ service: `s${s}`, tool: `t${t}` }));
    const fields = callFields(inc, facts);
    expect(fields).toHaveLength(12_000);
    expect(fields[11_999]).toBe(n(['s119', '1.0', 'planner', 't99']));
    expect(callFields(inc, [fact({ service: 's0', tool: 't0' })])).toEqual([
      n(['s0', '1.0', 'planner', 't0']),
    ]);
  });
});
