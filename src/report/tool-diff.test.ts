import { describe, expect, it } from 'vitest';
import { toolDiff } from './tool-diff.js';

describe('toolDiff', () => {
  it('keeps common calls in order and marks what is missing and extra', () => {
    expect(toolDiff(['search', 'book', 'email'], ['search', 'cancel', 'email'])).toEqual([
      { op: 'same', name: 'search' },
      { op: 'extra', name: 'cancel' },
      { op: 'missing', name: 'book' },
      { op: 'same', name: 'email' },
    ]);
  });

  it('compares canonical names and shows them as made', () => {
    expect(toolDiff(['get_weather'], ['functions.getWeather', 'getWeather'])).toEqual([
      { op: 'same', name: 'functions.getWeather' },
      { op: 'extra', name: 'getWeather' },
    ]);
  });

  it('handles empty sides', () => {
    expect(toolDiff([], ['a'])).toEqual([{ op: 'extra', name: 'a' }]);
    expect(toolDiff(['a'], [])).toEqual([{ op: 'missing', name: 'a' }]);
    expect(toolDiff([], [])).toEqual([]);
  });
});
