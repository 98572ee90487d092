import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { isLoopbackHost, resolveAccess } from './resolve-access.js';

const access = async (env: Record<string, string>) => resolveAccess(await loadConfig({ env }));

describe('resolveAccess', () => {
  it('reads scoped token lists from SPANSCORE_INGEST_TOKENS and SPANSCORE_READ_TOKENS', async () => {
    const a = await access({
      SPANSCORE_INGEST_TOKENS: 'a1, a2',
      SPANSCORE_READ_TOKENS: 'r1',
    });
    expect(a).toMatchObject({
      ingestTokens: ['a1', 'a2'],
      readTokens: ['r1'],
      loopbackOnly: false,
    });
    expect(a.notes).toEqual([]);
  });

  it('keeps the single token of earlier releases as ingest and, with no read token, read, and says so', async () => {
    const a = await access({ SPANSCORE_AUTH_TOKEN: 'old' });
    expect(a).toMatchObject({ ingestTokens: ['old'], readTokens: ['old'], loopbackOnly: false });
    expect(a.notes[0]).toMatch(/both the ingest and the read token: set SPANSCORE_INGEST_TOKENS/);
    const withRead = await access({ SPANSCORE_AUTH_TOKEN: 'old', SPANSCORE_READ_TOKENS: 'r' });
    expect(withRead).toMatchObject({ ingestTokens: ['old'], readTokens: ['r'] });
    expect(withRead.notes).toEqual([]);
  });

  it('keeps results to loopback clients on a non-loopback address with no read token', async () => {
    const open = await access({});
    expect(open.loopbackOnly).toBe(true); // the default host is 0.0.0.0
    expect(open.notes.join('\n')).toMatch(/loopback clients only .*SPANSCORE_READ_TOKENS/);
    expect((await access({ SPANSCORE_HOST: '127.0.0.1' })).loopbackOnly).toBe(false);
    expect((await access({ SPANSCORE_RESULTS_PUBLIC: 'true' })).loopbackOnly).toBe(false);
    expect((await access({ SPANSCORE_INGEST_TOKENS: 'a' })).loopbackOnly).toBe(true);
    expect((await access({ SPANSCORE_READ_TOKENS: 'r' })).loopbackOnly).toBe(false);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.3.2.1', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['127.example.com', false],
  ])('isLoopbackHost(%s) is %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });

  it('refuses a switch variable that is neither on nor off, naming it', async () => {
    await expect(loadConfig({ env: { SPANSCORE_RESULTS_PUBLIC: 'yes please' } })).rejects.toThrow(
      /SPANSCORE_RESULTS_PUBLIC: expected true, 1 or on; false, 0 or off; got "yes please"/,
    );
  });
});
