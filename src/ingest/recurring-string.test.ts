import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  recurringKeyUnlessUnread,
  recurringString,
  recurringStringHashed,
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

  it('guesses each key of a repeated order from the one before, without hashing', () => {
    // Sixty keys of two spans' attributes, in one order, read over and over: after the first two
    // rounds (the first learns each key's successor) no lookup hashes.
    const keys = Array.from({ length: 60 }, (_, i) => `${i % 2 ? 'gen_ai.' : 'llm.'}key.${i}`);
    const bodies = keys.map(k => Buffer.from(`#${k}#`));
    const read = (): void => {
      for (let i = 0; i < keys.length; i++)
        expect(recurringString(bodies[i]!, 1, bodies[i]!.length - 1)).toBe(keys[i]);
    };
    read();
    read();
    const before = recurringStringHashed();
    for (let round = 0; round < 50; round++) read();
    expect(recurringStringHashed() - before).toBe(0);
  });

  it('confirms a guess by every byte: one of the same length, one byte apart, is not taken for it', () => {
    // `a` then `b` learned; then `a` then a string of `b`'s length that differs from it in one
    // byte, in each word and in the tail, with bytes after it equal to `b`'s next bytes.
    const a = Buffer.from('gen_ai.operation.name');
    for (const b of ['gen_ai.tool.name', 'gen_ai.tool.call.id', 'llm.model_name.x']) {
      const read = (text: string): string => {
        const buf = Buffer.from(`${text}${b.slice(text.length)}tail`);
        return recurringString(buf, 0, text.length);
      };
      for (let i = 0; i < 3; i++) {
        expect(recurringString(a, 0, a.length)).toBe(a.toString());
        expect(read(b)).toBe(b);
      }
      for (let at = 0; at < b.length; at++) {
        const other = `${b.slice(0, at)}${b[at] === 'z' ? 'y' : 'z'}${b.slice(at + 1)}`;
        expect(recurringString(a, 0, a.length)).toBe(a.toString());
        expect(read(other)).toBe(other);
        expect(recurringString(a, 0, a.length)).toBe(a.toString());
        expect(read(b)).toBe(b);
      }
      // Shorter and longer by one, their bytes a prefix of `b` or `b` a prefix of theirs.
      for (const other of [b.slice(0, -1), `${b}z`]) {
        expect(recurringString(a, 0, a.length)).toBe(a.toString());
        expect(read(other)).toBe(other);
      }
    }
  });

  it('never hands back the string of a guessed slot since taken by another', () => {
    // `b` guessed after `a`; then `c`, of `b`'s length and slot (found by its evicting `b`: `b`
    // misses after it), read after `a` in its place and back again, each time right.
    const a = Buffer.from('span.kind');
    const b = 'gen_ai.tool.name.00000';
    const read = (text: string): string => recurringString(Buffer.from(text), 0, text.length);
    let c: string | undefined;
    for (let i = 1; i < 200_000 && c === undefined; i++) {
      const candidate = `gen_ai.tool.name.${String(i).padStart(5, '0')}`;
      read(b);
      read(candidate);
      const before = recurringStringMisses();
      read(b);
      if (recurringStringMisses() - before === 1) c = candidate;
    }
    expect(c).toBeDefined();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3; i++) {
        expect(recurringString(a, 0, a.length)).toBe('span.kind');
        expect(read(b)).toBe(b);
      }
      for (let i = 0; i < 3; i++) {
        expect(recurringString(a, 0, a.length)).toBe('span.kind');
        expect(read(c!)).toBe(c);
      }
      // Alternating: each guess points at the slot the other one holds now.
      for (let i = 0; i < 4; i++) {
        expect(recurringString(a, 0, a.length)).toBe('span.kind');
        expect(read(i % 2 ? c! : b)).toBe(i % 2 ? c : b);
      }
    }
  });

  it('keeps each guessed key’s unread answer with its own slot', () => {
    // Keys in and out of the unread families in one order: a guessed lookup must leave its own
    // slot for `recurringKeyUnlessUnread`, not the one guessed from.
    const keys = [
      'http.method',
      'app.name',
      'gen_ai.usage.input_tokens',
      'db.system',
      'x',
      'http.',
    ];
    const bodies = keys.map(k => Buffer.from(k));
    for (let round = 0; round < 20; round++)
      for (let i = 0; i < keys.length; i++)
        expect(recurringKeyUnlessUnread(bodies[i]!, 0, bodies[i]!.length), keys[i]).toBe(
          isUnreadKey(keys[i]!) ? undefined : keys[i],
        );
  });

  it('reads right whatever order strings come in, with guesses and evictions mixed', () => {
    // Orders repeated with changes (strings dropped, swapped, replaced by one of the same
    // length): each lookup after the first round is guessed, and many guesses are wrong.
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 40 }),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { maxLength: 40 }),
        (list, changes) => {
          const order = list.map(bytes => Buffer.from(bytes));
          for (const [at, byte] of [[0, -1] as const, ...changes]) {
            const i = at % order.length;
            if (byte >= 0) {
              const changed = Buffer.from(order[i]!);
              changed[at % changed.length] = byte;
              order[i] = changed;
            }
            for (const bytes of [...order, ...order]) {
              const buf = Buffer.concat([bytes, Buffer.from([0x62, 0x62, 0x62])]);
              expect(recurringString(buf, 0, bytes.length)).toBe(bytes.toString('utf8'));
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
