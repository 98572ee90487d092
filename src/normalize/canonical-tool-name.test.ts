import { describe, expect, it } from 'vitest';
import { buildAliasMap, canonicalToolName, stripToolNamespace } from './canonical-tool-name.js';

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
