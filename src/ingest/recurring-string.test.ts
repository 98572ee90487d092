import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  recurringKeyUnlessUnread,
  recurringString,
  recurringStringMisses,
} from './recurring-string.js';
import { isUnreadKey } from './unread-attributes.js';

describe('recurringString: the decoder cache of repeating strings', () => {
  it('always gives the bytes’ UTF-8 string, whatever was cached before (collisions included)', () => {
    // Thousands of short byte strings over 4,096 slots: some share a slot and replace each other.
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 0, maxLength: 60 }), { minLength: 1, maxLength: 200 }),
        fc.nat({ max: 7 }),
        (list, pad) => {
          for (const bytes of [...list, ...list]) {
            const buf = Buffer.concat([Buffer.alloc(pad, 0x61), bytes, Buffer.alloc(3, 0x62)]);
            expect(recurringString(buf, pad, pad + bytes.length)).toBe(
              Buffer.from(bytes).toString('utf8'),
            );
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('hands back the same string for the same bytes at another offset', () => {
    const a = Buffer.from('xx gen_ai.tool.name yy');
    const b = Buffer.from('gen_ai.tool.name');
    expect(recurringString(a, 3, 19)).toBe('gen_ai.tool.name');
    expect(recurringString(b, 0, b.length)).toBe(recurringString(a, 3, 19));
    expect(recurringString(Buffer.from('gen_ai.tool.namf'), 0, 16)).toBe('gen_ai.tool.namf');
  });

  it('tells apart strings of one length that differ in a digit or two', () => {
    const made = (i: number): string =>
      `ab${String(i).padStart(6, '0')}xxxxxxxx${String(i).padStart(6, '0')}zzzzzzzz`;
    const texts = Array.from({ length: 2_000 }, (_, i) => made(i));
    expect(new Set(texts).size).toBe(2_000);
    for (const round of [0, 1])
      for (const text of texts) {
        const buf = Buffer.from(`${'-'.repeat(round)}${text}`);
        expect(recurringString(buf, round, buf.length)).toBe(text);
      }
  });

  it('decodes each numbered key of a span once, however many spans repeat them', () => {
    // The keys OpenLLMetry and OpenInference write for every LLM span: one length, one digit
    // apart. A hash that skipped the digit put them in one slot, each evicting the last.
    const keys = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap(n => [
      `gen_ai.prompt.${n}.role`,
      `gen_ai.prompt.${n}.content`,
      `gen_ai.completion.${n}.content`,
      `llm.input_messages.${n}.message.content`,
      `llm.output_messages.${n}.message.role`,
      `gen_ai.request.functions.${n}.name`,
    ]);
    const bodies = keys.map(k => Buffer.from(`##${k}`));
    const read = (): void => {
      for (let i = 0; i < keys.length; i++) {
        const body = bodies[i]!;
        expect(recurringString(body, 2, body.length)).toBe(keys[i]);
      }
    };
    read(); // the first span: each key decoded (unless a test before left it in the cache)
    const before = recurringStringMisses();
    for (let span = 0; span < 100; span++) read();
    expect(recurringStringMisses() - before).toBe(0);
  });

  it('reads the bytes a buffer holds now, at any offset into its memory', () => {
    // One buffer read again after its bytes changed (the view of the last buffer is kept), and
    // views at every offset of one memory (words unaligned to it).
    const buf = Buffer.from('gen_ai.tool.name');
    expect(recurringString(buf, 0, buf.length)).toBe('gen_ai.tool.name');
    buf.write('gen_ai.tool.type');
    expect(recurringString(buf, 0, buf.length)).toBe('gen_ai.tool.type');
    const memory = Buffer.from('..0123456789abcdefghijklmnopqrstuvwxyz..');
    for (let offset = 0; offset < 8; offset++) {
      const view = memory.subarray(offset);
      expect(recurringString(view, 2 - Math.min(offset, 2), 30)).toBe(
        memory.toString('latin1', offset + 2 - Math.min(offset, 2), offset + 30),
      );
    }
  });

  it('reads short strings, one byte apart', () => {
    for (let len = 1; len < 8; len++)
      for (let c = 0; c < 128; c++) {
        const text = String.fromCharCode(c).repeat(len);
        expect(recurringString(Buffer.from(text), 0, len)).toBe(text);
      }
  });

  it('reads a key unless it is in an unread family, asked again, after its slot was taken, at any length', () => {
    // Keys in and out of the families, of every length the cache holds and past it; thousands of
    // them, so that slots are taken over and their answers must not outlive their strings.
    const stems = [
      'http.',
      'gen_ai.usage.',
      'gen_ai.',
      'db.',
      'dbx.',
      'os.',
      'url.',
      'user_agent.',
    ];
    const keys = ['', 'http.', 'db.', 'd', 'http', 'h'];
    for (let i = 0; i < 3000; i++) {
      const stem = stems[i % stems.length]!;
      keys.push(`${stem}${'k'.repeat(i % 50)}${i}`);
    }
    for (const round of [0, 1, 2])
      for (const key of keys) {
        const buf = Buffer.from(`${'#'.repeat(round)}${key}`);
        expect(recurringKeyUnlessUnread(buf, round, buf.length)).toBe(
          isUnreadKey(key) ? undefined : key,
        );
      }
  });

  it('never decodes a key of an unread family longer than the cache holds', () => {
    // Past 48 bytes a key goes around the cache: one outside the families is decoded each time
    // (as before the cache kept families' answers), one in them not at all.
    const unread = Buffer.from(`http.${'é'.repeat(50)}`);
    const read = Buffer.from(`app.${'é'.repeat(50)}`);
    const toString = Buffer.prototype.toString;
    let decoded = 0;
    Buffer.prototype.toString = function (this: Buffer, ...args: Parameters<Buffer['toString']>) {
      const text = toString.apply(this, args);
      decoded += Buffer.byteLength(text);
      return text;
    };
    try {
      for (let i = 0; i < 10; i++)
        expect(recurringKeyUnlessUnread(unread, 0, unread.length)).toBeUndefined();
      expect(decoded).toBe(0);
      expect(recurringKeyUnlessUnread(read, 0, read.length)).toBe(`app.${'é'.repeat(50)}`);
      expect(decoded).toBe(read.length);
    } finally {
      Buffer.prototype.toString = toString;
    }
  });

  it('tells apart keys that differ only in their last byte, with bytes after them', () => {
    // The last one to three bytes are read as one word and masked: a mask a byte short would
    // make these share a string.
    for (let len = 1; len <= 48; len++) {
      const seen = new Set<string>();
      for (const last of ['a', 'b', 'c']) {
        const buf = Buffer.from(`${'k'.repeat(len - 1)}${last}zzzz`);
        seen.add(recurringString(buf, 0, len));
      }
      expect(seen.size, `length ${len}`).toBe(3);
    }
  });
});
