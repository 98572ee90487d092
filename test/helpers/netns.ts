import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A network namespace joined to this one by a veth pair: a second host on this machine whose
 * address is not loopback, for tests of what a remote client sees. Only its own two addresses
 * are ever reached.
 */
export interface Netns {
  name: string;
  /** This namespace's end of the pair: where the remote client connects to. */
  hostAddress: string;
  /** The remote client's address. */
  clientAddress: string;
  /**
   * Fetches `url` from inside the namespace with this Node (a child process: the server under
   * test may run in this one); resolves with its status and body.
   */
  fetch(
    url: string,
    init?: { method?: string; headers?: Record<string, string>; body?: string },
  ): Promise<{ status: number; body: string }>;
  remove(): void;
}

/**
 * Creates the namespace (`ip netns`, which needs root): `undefined` with the reason when this
 * machine does not allow it.
 */
export function createNetns(): Netns | { unavailable: string } {
  const id = `${process.pid % 1000}${randomInt(100, 999)}`;
  const name = `spanscore-${id}`;
  const [hostIf, nsIf] = [`ssh${id}`, `ssn${id}`];
  const subnet = `10.213.${randomInt(0, 255)}.${randomInt(0, 63) * 4}`;
  const base = subnet.split('.').map(Number);
  const hostAddress = `${base[0]}.${base[1]}.${base[2]}.${base[3]! + 1}`;
  const clientAddress = `${base[0]}.${base[1]}.${base[2]}.${base[3]! + 2}`;
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
  const remove = (): void => {
    spawnSync('ip', ['link', 'del', hostIf], { stdio: 'ignore' });
    spawnSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
  };
  try {
    ip('netns', 'add', name);
    ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf);
    ip('link', 'set', nsIf, 'netns', name);
    ip('addr', 'add', `${hostAddress}/30`, 'dev', hostIf);
    ip('link', 'set', hostIf, 'up');
    ip('netns', 'exec', name, 'ip', 'addr', 'add', `${clientAddress}/30`, 'dev', nsIf);
    ip('netns', 'exec', name, 'ip', 'link', 'set', nsIf, 'up');
    ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  } catch (error) {
    remove();
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { unavailable: stderr || (error as Error).message };
  }
  return {
    name,
    hostAddress,
    clientAddress,
    async fetch(url, init = {}) {
      const script = `fetch(${JSON.stringify(url)}, ${JSON.stringify(init)})
        .then(async r => process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() })))
        .catch(e => { process.stderr.write(String(e)); process.exit(1); });`;
      const { stdout } = await run('ip', ['netns', 'exec', name, process.execPath, '-e', script], {
        encoding: 'utf8',
        timeout: 15_000,
      });
      return JSON.parse(stdout) as { status: number; body: string };
    },
    remove,
  };
}
