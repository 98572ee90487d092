import { describe, expect, it } from 'vitest';
import { buildAliasMap } from '../../normalize/canonical-tool-name.js';
import { agentTrace, type CallInput } from '../../../test/helpers/trace-builder.js';
import type { ScoreResult } from '../score-result.js';
import { toolCorrectness } from './tool-correctness.js';

function score(
  calls: CallInput[],
  expectedTools: string[] | undefined,
  options: Record<string, unknown> = {},
  aliases = new Map<string, string>(),
): ScoreResult {
  return toolCorrectness.score({
    trace: agentTrace(calls),
    testCase: { id: 't', scorers: [], ...(expectedTools && { expectedTools }) },
    options: toolCorrectness.parseOptions(options),
    aliases,
  }) as ScoreResult;
}

describe('tool_correctness (Galtea)', () => {
  it('1 when all expected tools were called and nothing else, order and repeats ignored', () => {
    expect(score(['search', 'weather', 'search'], ['weather', 'search'])).toMatchObject({
      score: 1,
      label: 'pass',
      details: { missingTools: [], unexpectedTools: [] },
    });
  });
  it('0 with the missing tool listed', () => {
    expect(score(['search'], ['weather', 'search'])).toMatchObject({
      score: 0,
      details: { missingTools: ['weather'], unexpectedTools: [] },
      reason: 'missing weather',
    });
  });
  it('0 with the unnecessary tool listed', () => {
    expect(score(['search', 'delete_user'], ['search'])).toMatchObject({
      score: 0,
      details: { unexpectedTools: ['delete_user'] },
    });
  });
  it('normalizes and dedupes by canonical name', () => {
    expect(
      score(['functions.getWeather', 'get-weather', 'mcp__web__search'], ['get_weather', 'Search']),
    ).toMatchObject({ score: 1, details: { toolsUsed: ['getWeather', 'search'] } });
  });
  it('applies suite aliases', () => {
    expect(
      score(
        ['lookup_forecast'],
        ['get_weather'],
        {},
        new Map(buildAliasMap({ lookup_forecast: 'get_weather' })),
      ),
    ).toMatchObject({ score: 1 });
  });
  it('expectedTools: [] passes only when no tool was called', () => {
    expect(score([], [])).toMatchObject({ score: 1 });
    expect(score(['x'], [])).toMatchObject({ score: 0 });
  });
  it('is skipped without expectedTools', () => {
    expect(score(['x'], undefined)).toEqual({
      status: 'skipped',
      reason: 'no expectedTools for this test case',
    });
  });
  it('normalize: false compares raw names', () => {
    expect(score(['getWeather'], ['get_weather'], { normalize: false })).toMatchObject({
      score: 0,
      details: { missingTools: ['get_weather'], unexpectedTools: ['getWeather'] },
    });
  });
});
