import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { isRedisError } from './is-redis-error.js';

describe('isRedisError', () => {
  it("takes ioredis's errors for Redis failures, those of a cluster in failover included", () => {
    // What ioredis 5 rejects with, word for word, on one server and on a cluster.
    for (const message of [
      "Cluster isn't ready and enableOfflineQueue options is false",
      'Too many Cluster redirections. Last error: Error: Connection is closed.',
      'Cluster is disconnected.',
      'Node is disconnected',
      'Connection is closed.',
      "Stream isn't writeable and enableOfflineQueue options is false",
      'Command timed out',
    ])
      expect(isRedisError(new Error(message)), message).toBe(true);
    expect(isRedisError(new ReplyError('WRONGTYPE Operation against a key'))).toBe(true);
    expect(
      isRedisError(Object.assign(new Error('connect ECONNREFUSED'), { syscall: 'connect' })),
    ).toBe(true);
  });

  it('takes a programming error, or a thrown value that is no Error, for a bug', () => {
    expect(isRedisError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(
      false,
    );
    expect(isRedisError(new RangeError('Invalid array length'))).toBe(false);
    expect(isRedisError(new ReferenceError('x is not defined'))).toBe(false);
    expect(isRedisError('a string')).toBe(false);
  });
});
