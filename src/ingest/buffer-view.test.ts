import { describe, expect, it } from 'vitest';
import { bufferView, releaseBufferView, viewedBytes } from './buffer-view.js';

describe('bufferView', () => {
  it('views the buffer at its own offset, one view while the same buffer is read', () => {
    const memory = Buffer.from([9, 9, 9, 1, 2, 3, 4, 5]);
    const buf = memory.subarray(3);
    const view = bufferView(buf);
    expect(view.getInt32(0, true)).toBe(0x04030201);
    expect(view.byteLength).toBe(5);
    expect(bufferView(buf)).toBe(view);
    // Another buffer, even over the same memory, gets its own view.
    const other = memory.subarray(1);
    expect(bufferView(other)).not.toBe(view);
    expect(bufferView(other).getUint8(0)).toBe(9);
  });

  it('lets go of the buffer it viewed when told, unless it is small enough to keep', () => {
    const small = Buffer.alloc(100, 0x78);
    const view = bufferView(small);
    expect(viewedBytes()).toBe(100);
    releaseBufferView(100);
    expect(viewedBytes()).toBe(100);
    expect(bufferView(small)).toBe(view);
    releaseBufferView(99);
    expect(viewedBytes()).toBe(0);
    bufferView(small);
    releaseBufferView();
    expect(viewedBytes()).toBe(0);
    expect(bufferView(small)).not.toBe(view);
    expect(bufferView(small).getUint8(99)).toBe(0x78);
  });
});
