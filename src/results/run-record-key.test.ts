import { describe, expect, it } from 'vitest';
import {
  isSessionRecordKey,
  parseSessionRecordKey,
  resultRecordKey,
  runRecordKey,
  sessionRecordKey,
} from './run-record-key.js';

describe('session record keys', () => {
  it('keeps part 1 at session:<id> and puts part n at session~<n>:<id>', () => {
    expect(sessionRecordKey('conv-a')).toBe('session:conv-a');
    expect(sessionRecordKey('conv-a', 1)).toBe('session:conv-a');
    expect(sessionRecordKey('conv-a', 3)).toBe('session~3:conv-a');
    expect(
      runRecordKey({ traceId: 'f'.repeat(32), session: { id: 'c', part: 2, traceIds: [] } }),
    ).toBe('session~2:c');
    expect(resultRecordKey({ traceId: 'f'.repeat(32), sessionId: 'c', sessionPart: 2 })).toBe(
      'session~2:c',
    );
    expect(resultRecordKey({ traceId: 'f'.repeat(32), sessionId: 'c' })).toBe('session:c');
    expect(resultRecordKey({ traceId: 'f'.repeat(32) })).toBe('f'.repeat(32));
  });

  it.each([
    ['an id that looks like a part', '~2:x'],
    ['an id with colons and spaces', 'a: b ~3:c'],
    ['an id that starts like a key', 'session~2:conv'],
    ['markup', '<b>x</b>'],
  ])('never confuses two sessions or parts: %s', (_what, id) => {
    const keys = [1, 2, 10].map(part => sessionRecordKey(id, part));
    expect(new Set(keys).size).toBe(3);
    for (const [i, part] of [1, 2, 10].entries()) {
      expect(isSessionRecordKey(keys[i]!)).toBe(true);
      expect(parseSessionRecordKey(keys[i]!)).toEqual({ sessionId: id, part });
    }
    // Another id's part never lands on this id's keys.
    expect(keys).not.toContain(sessionRecordKey(`${id}x`, 2));
  });

  it('knows a trace id is no session key', () => {
    expect(isSessionRecordKey('0123456789abcdef0123456789abcdef')).toBe(false);
    expect(parseSessionRecordKey('0123456789abcdef0123456789abcdef')).toBeUndefined();
    expect(isSessionRecordKey('session~0:x')).toBe(false);
  });
});
