import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { probeEndpoint } from './probe-endpoint.js';

async function listening(): Promise<Server> {
  const server = createServer(socket => socket.destroy());
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function closedPort(): Promise<number> {
  const server = await listening();
  const { port } = server.address() as { port: number };
  await new Promise(resolve => server.close(resolve));
  return port;
}

/** Holds the event loop, as a process starting up does: no timer or I/O callback runs meanwhile. */
function holdLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe('probeEndpoint', () => {
  it('says nothing is wrong when something listens, and names a refused connection', async () => {
    const server = await listening();
    const { port } = server.address() as { port: number };
    expect(await probeEndpoint(`http://127.0.0.1:${port}/v1/traces`)).toBeUndefined();
    await new Promise(resolve => server.close(resolve));
    expect(await probeEndpoint(`http://127.0.0.1:${await closedPort()}/v1/traces`)).toBe(
      'ECONNREFUSED',
    );
  });

  it('reports the refusal, not a timeout, when the event loop was held past the timeout', async () => {
    const port = await closedPort();
    const verdict = probeEndpoint(`http://127.0.0.1:${port}/v1/traces`, 20);
    holdLoop(200); // the refusal reached the kernel long before the timer could fire
    expect(await verdict).toBe('ECONNREFUSED');
  });

  it('names an unusable URL without connecting', async () => {
    expect(await probeEndpoint('not a url')).toBe('not a URL');
  });
});
