import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fileBytesRead } from '../../test/helpers/counting-calls.js';
import { readFileAtMost } from './read-file-at-most.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * Bytes of the buffers of 16 KiB or more that `Buffer`'s allocating functions give from here on.
 * The spy sees every buffer of this worker, and in the shared project other files' clients (a
 * socket's few bytes) allocate meanwhile: 4 bytes were counted in one full run, 4 more in another.
 * The reads tested here allocate 200,001 bytes and more.
 */
function countBufferBytes(): { bytes: number } {
  const counted = { bytes: 0 };
  const buffer = Buffer as unknown as Record<string, (...args: unknown[]) => Buffer>;
  for (const name of ['alloc', 'allocUnsafe', 'allocUnsafeSlow', 'from', 'concat']) {
    const made = buffer[name]!;
    vi.spyOn(buffer, name).mockImplementation((...args: unknown[]) => {
      const out = made.apply(Buffer, args);
      if (out.length >= 16 * 1024) counted.bytes += out.length;
      return out;
    });
  }
  return counted;
}

describe('readFileAtMost', () => {
  it('refuses a regular file that stat says is past the bound having read and held no byte of it', async () => {
    // It read the bound and one byte (256 MiB + 1 by default) of a file stat had already sized
    // past it, held in one buffer: here 4 MiB + 1 read and allocated of a 16 MiB sparse file.
    const file = join(mkdtempSync(join(tmpdir(), 'spanscore-head-')), 'big.json');
    writeFileSync(file, '');
    truncateSync(file, 16 * 1024 * 1024);
    const bound = 4 * 1024 * 1024;
    const counted = countBufferBytes();
    let head: Awaited<ReturnType<typeof readFileAtMost>> | undefined;
    const read = await fileBytesRead(async () => (head = await readFileAtMost(file, bound)));
    expect(head?.whole).toBe(false);
    expect(head?.data.length).toBe(0);
    expect(read).toBe(0);
    // No buffer for the file: 4 MiB + 1 before.
    expect(counted.bytes).toBe(0);
  });

  it('holds a device past the bound once: one buffer of the bound and one byte, that many read', async () => {
    // It read 64 KiB at a time, copied each piece, then joined them: twice the bound held (a
    // refused 256 MiB trace file peaked at 607 MB). A device's stat says no size.
    const bound = 4 * 1024 * 1024;
    let head: Awaited<ReturnType<typeof readFileAtMost>> | undefined;
    const read = await fileBytesRead(async () => (head = await readFileAtMost('/dev/zero', bound)));
    expect(head?.whole).toBe(false);
    expect(head?.data.length).toBe(bound + 1);
    expect(read).toBe(bound + 1);
  });

  it('reads a file at the bound whole, into a buffer of its size and one byte', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'spanscore-head-')), 'at.json');
    const text = 'x'.repeat(200_000);
    writeFileSync(file, text);
    const counted = countBufferBytes();
    const head = await readFileAtMost(file, text.length);
    expect(head.whole).toBe(true);
    expect(head.data.toString()).toBe(text);
    expect(counted.bytes).toBe(text.length + 1);
  });

  it('reads a device that says no size to one byte past the bound, growing its buffer', async () => {
    const head = await readFileAtMost('/dev/zero', 200_000);
    expect(head.whole).toBe(false);
    expect(head.data.length).toBe(200_001);
    expect(head.data.equals(Buffer.alloc(200_001))).toBe(true);
  });
});
