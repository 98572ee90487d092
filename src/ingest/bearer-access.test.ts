import { describe, expect, it } from 'vitest';
import { bearerAccess } from './bearer-access.js';

const tokens = { ingest: ['agent-1', 'agent-2', 'both'], read: ['reader', 'both'] };

describe('bearerAccess', () => {
  it.each([
    // scope, header, expected status (200 = allowed)
    ['ingest', undefined, 401],
    ['ingest', 'Bearer agent-1', 200],
    ['ingest', 'bearer   agent-2', 200],
    ['ingest', 'Bearer both', 200],
    ['ingest', 'Bearer reader', 403],
    ['ingest', 'Bearer nope', 401],
    ['ingest', 'Basic agent-1', 401],
    ['ingest', 'Bearer agent-1 extra', 401],
    ['read', undefined, 401],
    ['read', 'Bearer reader', 200],
    ['read', 'Bearer both', 200],
    ['read', 'Bearer agent-1', 403],
    ['read', 'Bearer agent-1x', 401],
  ] as const)('%s with %s → %i', (scope, header, status) => {
    const decision = bearerAccess(tokens, scope)(header);
    expect(decision.allowed ? 200 : decision.status).toBe(status);
  });

  it('says which scope a refused known token has, and never echoes a token', () => {
    const ingest = bearerAccess(tokens, 'ingest')('Bearer reader');
    const read = bearerAccess(tokens, 'read')('Bearer agent-1');
    expect(ingest).toEqual({
      allowed: false,
      status: 403,
      message: 'this token is a read token: it may not send spans',
    });
    expect(read).toEqual({
      allowed: false,
      status: 403,
      message: 'this token is an ingest token: it may not read results',
    });
    const unknown = bearerAccess(tokens, 'read')('Bearer s3cr3t-guess');
    expect(unknown.allowed === false && unknown.message).not.toContain('s3cr3t');
  });

  it('allows everything for a scope with no token, whatever the other scope has', () => {
    const open = bearerAccess({ ingest: [], read: ['reader'] }, 'ingest');
    expect(open(undefined)).toEqual({ allowed: true });
    expect(open('Bearer anything')).toEqual({ allowed: true });
  });

  it('rotates: two tokens of one scope are both accepted until one is removed', () => {
    const before = bearerAccess({ ingest: ['old', 'new'], read: [] }, 'ingest');
    const after = bearerAccess({ ingest: ['new'], read: [] }, 'ingest');
    expect([before('Bearer old').allowed, before('Bearer new').allowed]).toEqual([true, true]);
    expect([after('Bearer old').allowed, after('Bearer new').allowed]).toEqual([false, true]);
  });
});
