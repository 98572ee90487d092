import { describe, expect, it } from 'vitest';
import { textTable } from './text-table.js';

describe('textTable', () => {
  it('pads every column but the last to its widest cell, wide characters counted as two', () => {
    expect(
      textTable(
        ['Case', 'Result'],
        [
          ['天気', 'pass'],
          ['weather-paris', 'fail'],
        ],
      ),
    ).toBe(
      [
        'Case           Result',
        '─────────────  ──────',
        '天気           pass',
        'weather-paris  fail',
      ].join('\n'),
    );
  });

  it('paints cells after padding, so colour codes never shift the columns', () => {
    const out = textTable(['a', 'b'], [['x', 'y']], (text, _row, column) =>
      column === 0 ? `\u001b[31m${text}\u001b[39m` : text,
    );
    expect(out.split('\n')[2]).toBe('\u001b[31mx\u001b[39m  y');
  });
});
