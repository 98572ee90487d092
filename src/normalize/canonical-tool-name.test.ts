import { describe, expect, it } from 'vitest';
import { counting } from '../../test/helpers/counting-calls.js';
import { teamTrace } from '../../test/helpers/trace-builder.js';
import { cutName, INPUT_BOUNDS, inputBoundHits } from './input-bounds.js';
import {
  buildAliasMap,
  canonicalToolName,
  stripToolNamespace,
  toolNameCacheChars,
  toolNames,
} from './canonical-tool-name.js';

describe('stripToolNamespace', () => {
  it.each([
    ['functions.get_weather', 'get_weather'],
    ['tools.search', 'search'],
    ['default_api.lookup', 'lookup'],
    ['mcp__github__create_issue', 'create_issue'],
    ['mcp__my_server__list_files', 'list_files'],
    ['github/create_issue', 'create_issue'],
    ['  weather-tool \n', 'weather-tool'],
    ['Cafe\u0301Finder', 'CaféFinder'], // NFD é → NFC é
    ['functions.', 'functions.'], // nothing left after the namespace: keep the name
    ['a/b/c', 'a/b/c'], // only one leading server segment is a namespace
  ])('%j → %j', (raw, stripped) => {
    expect(stripToolNamespace(raw)).toBe(stripped);
  });
});

describe('canonicalToolName', () => {
  it.each([
    ['getWeather', 'get_weather'],
    ['get-weather', 'get_weather'],
    ['Get Weather', 'get_weather'],
    ['functions.get_weather', 'get_weather'],
    ['GET_WEATHER', 'get_weather'],
    ['getHTTPStatus', 'get_http_status'],
    ['weather-tool', 'weather_tool'],
    ['WeatherPlugin-get_forecast', 'weather_plugin_get_forecast'],
    ['search.v2', 'search_v2'],
    ['__private__', 'private'],
    ['---', '---'], // folding would leave nothing: keep the name
  ])('%j → %j', (raw, canonical) => {
    expect(canonicalToolName(raw)).toBe(canonical);
  });

  it('applies aliases by canonical name, once', () => {
    const aliases = buildAliasMap({
      'lookup-weather': 'getWeather',
      weather: 'forecast',
      forecast: 'other',
    });
    expect(canonicalToolName('lookupWeather', aliases)).toBe('get_weather');
    expect(canonicalToolName('functions.lookup_weather', aliases)).toBe('get_weather');
    expect(canonicalToolName('Weather', aliases)).toBe('forecast'); // not chained on to "other"
    expect(canonicalToolName('unrelated', aliases)).toBe('unrelated');
  });
});

describe('toolNames cache: names come from traces anyone can send', () => {
  it('holds no long name, and reads it as it reads a short one', () => {
    const before = toolNameCacheChars();
    // Past the cache's 256 characters, within the bound of what is read (1,024).
    const long = `functions.getWeather${'X'.repeat(900)}`;
    for (let i = 0; i < 50; i++) toolNames(`${long}${i}`);
    expect(toolNameCacheChars()).toBe(before);
    expect(toolNames(`${long}7`).folded).toBe(`get_weather_${'x'.repeat(900)}7`);
    expect(canonicalToolName(`functions.getWeather${'X'.repeat(300)}`)).toBe(
      `get_weather_${'x'.repeat(300)}`,
    );
  });

  it('holds at most a million characters of names, however many distinct ones arrive', () => {
    let most = 0;
    for (let i = 0; i < 20_000; i++) {
      toolNames(`tool_${i}_${'n'.repeat(240)}`);
      most = Math.max(most, toolNameCacheChars());
    }
    expect(most).toBeGreaterThan(900_000); // it does cache them
    expect(most).toBeLessThanOrEqual(1_000_000);
  });
});

describe('a tool name longer than the bound', () => {
  it('is cut before its regular expressions run, and counted', async () => {
    // 4 million characters of case changes: each of the ten passes over it replaced 2 million
    // matches (2.7 s a fold, three folds a call); now they read the first 1,024 characters.
    const name = `functions.${'aB'.repeat(2_000_000)}`;
    const before = inputBoundHits.longNames;
    let scanned = 0;
    let names: ReturnType<typeof toolNames> | undefined;
    await counting(
      String.prototype,
      'replace',
      function (this: string) {
        scanned += this.length;
      },
      () => (names = toolNames(name)),
    );
    const max = INPUT_BOUNDS.maxNameChars;
    expect(names!.stripped).toBe(name.slice('functions.'.length, max));
    // The 1,014 characters after the namespace: 507 of `aB`.
    expect(names!.folded).toBe('a_b'.repeat((max - 'functions.'.length) / 2));
    expect(inputBoundHits.longNames - before).toBe(1);
    // Each pass reads at most the cut (10 passes: about 40 million characters before).
    expect(scanned).toBeLessThan(20 * max);
  });

  it('leaves a name within the bound whole', () => {
    const name = 'x'.repeat(INPUT_BOUNDS.maxNameChars);
    const before = inputBoundHits.longNames;
    expect(toolNames(name).stripped).toBe(name);
    expect(inputBoundHits.longNames).toBe(before);
  });
});

describe('names kept by a normalized trace', () => {
  it('are cut at the bound, tools and agents alike, each cut counted', () => {
    // A tool and an agent named by 100,000 characters each: every result, run record and
    // counter of the trace stores its names (one 4 MB tool name stored 75 MB in Redis).
    const max = INPUT_BOUNDS.maxNameChars;
    const tool = `t${'x'.repeat(100_000)}`;
    const agent = `a${'y'.repeat(100_000)}`;
    const before = inputBoundHits.longNames;
    const trace = teamTrace([{ agent, calls: [tool] }]);
    expect(trace.toolSequence.map(c => [c.rawName, c.name])).toEqual([
      [tool.slice(0, max), tool.slice(0, max)],
    ]);
    expect(trace.toolSequence[0]!.agent).toBe(agent.slice(0, max));
    expect(trace.agents.map(a => a.agent)).toEqual([agent.slice(0, max)]);
    // The tool's name and the agent's, once each.
    expect(inputBoundHits.longNames - before).toBe(2);
  });
});

describe('cutName', () => {
  it('never keeps the first half of a surrogate pair at the cut', () => {
    const max = INPUT_BOUNDS.maxNameChars;
    // '😀' is two units: its first half falls on the last unit kept.
    const name = `${'x'.repeat(max - 1)}😀tail`;
    expect(cutName(name)).toBe('x'.repeat(max - 1));
    expect(cutName('y'.repeat(max))).toBe('y'.repeat(max));
  });
});
