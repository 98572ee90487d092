import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { otlpRequest, spanId, traceId } from '../../test/helpers/otlp-json-builder.js';
import { fileBytesRead } from '../../test/helpers/counting-calls.js';
import { runCli } from '../../test/helpers/run-cli.js';
import { readTraceFiles } from './read-trace-files.js';

const LISTED_CHILD = fileURLToPath(
  new URL('../../test/helpers/listed-trace-files.child.ts', import.meta.url),
);

const request = (t: number, name: string): unknown =>
  otlpRequest([{ traceId: traceId(t), spanId: spanId(t, 1), name, startMs: 0, endMs: 1 }]);

function dir(files: Record<string, string | Buffer>): string {
  const d = mkdtempSync(join(tmpdir(), 'spanscore-read-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(d, name, '..'), { recursive: true });
    writeFileSync(join(d, name), content);
  }
  return d;
}

const CAPTURE = new URL(
  '../../test/fixtures/otlp/captured-opentelemetry-openai-0.21.0',
  import.meta.url,
).pathname;

describe('readTraceFiles', () => {
  it('reads trace and logs requests mixed, as JSON Lines (gzip) and as .otlp.pb beside .logs.pb', async () => {
    // What the OpenTelemetry OpenAI instrumentation sent: 10 spans, 25 GenAI log records.
    const [traces, logs] = JSON.parse(readFileSync(`${CAPTURE}.otlp.json`, 'utf8')) as unknown[];
    const d = dir({
      'run.jsonl.gz': gzipSync(`${JSON.stringify(logs)}\n${JSON.stringify(traces)}\n`),
      'pb/run.otlp.pb': readFileSync(`${CAPTURE}.otlp.pb`),
      'pb/run.logs.pb': readFileSync(`${CAPTURE}.logs.pb`),
    });
    const lines = await readTraceFiles([join(d, 'run.jsonl.gz')]);
    expect(lines.problems).toEqual([]);
    expect([lines.requests, lines.logRecords, lines.spans.length]).toEqual([2, 25, 35]);
    const pb = await readTraceFiles([join(d, 'pb')]);
    expect(pb.problems).toEqual([]);
    expect([pb.requests, pb.logRecords, pb.spans.length]).toEqual([2, 25, 35]);
    // A logs request read as a trace request would give no span with a GenAI event name.
    expect(pb.spans.filter(s => s.name === 'gen_ai.choice')).toHaveLength(7);
  });

  it('reads JSON, JSON Lines, gzip and nested directories, in name order, skipping other files', async () => {
    const d = dir({
      'a.json': JSON.stringify(request(1, 'from-json')),
      'b.jsonl': `${JSON.stringify(request(2, 'line-1'))}\n\n${JSON.stringify(request(3, 'line-3'))}\n`,
      'sub/c.json.gz': gzipSync(JSON.stringify(request(4, 'from-gzip'))),
      'notes.txt': 'not a trace',
    });
    const out = await readTraceFiles([d]);
    expect(out.problems).toEqual([]);
    expect(out.files).toBe(3);
    expect(out.requests).toBe(4);
    expect(out.spans.map(s => s.name)).toEqual(['from-json', 'line-1', 'line-3', 'from-gzip']);
  });

  it('reads a .json file that is really JSON Lines, and a JSON array of requests', async () => {
    const d = dir({
      'lines.json': `${JSON.stringify(request(1, 'x'))}\n${JSON.stringify(request(2, 'y'))}\n`,
      'array.json': JSON.stringify([request(3, 'z'), request(4, 'w')]),
    });
    const out = await readTraceFiles([join(d, 'lines.json'), join(d, 'array.json')]);
    expect(out.problems).toEqual([]);
    expect(out.spans.map(s => s.name)).toEqual(['x', 'y', 'z', 'w']);
  });

  it('reads a lone surrogate as U+FFFD, as the receiver does, in JSON and JSON Lines', async () => {
    // JSON.stringify writes a lone half as its escape; a pair stays a pair.
    const d = dir({
      'a.json': JSON.stringify(request(1, 'look\ud800up \u{1F600}')),
      'b.jsonl': `${JSON.stringify(request(2, 'x\udc00'))}\n`,
    });
    const out = await readTraceFiles([d]);
    expect(out.spans.map(s => s.name)).toEqual(['look\ufffdup \u{1F600}', 'x\ufffd']);
  });

  it('reports each bad line with its number and keeps every good one', async () => {
    const d = dir({
      'mixed.jsonl': [
        JSON.stringify(request(1, 'ok-1')),
        '{"resourceSpans": [',
        JSON.stringify({ resourceSpans: 7 }),
        JSON.stringify(request(2, 'ok-4')),
      ].join('\n'),
    });
    const out = await readTraceFiles([d]);
    expect(out.spans.map(s => s.name)).toEqual(['ok-1', 'ok-4']);
    expect(out.problems).toEqual([
      {
        file: join(d, 'mixed.jsonl'),
        record: 'line 2',
        message: expect.stringMatching(/^invalid JSON/),
      },
      {
        file: join(d, 'mixed.jsonl'),
        record: 'line 3',
        path: 'resourceSpans',
        message: 'expected an array, got number 7',
      },
    ]);
  });

  it('refuses a gzip bomb past the decompressed-size limit without reading it all', async () => {
    const d = dir({
      'bomb.json.gz': gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20)),
      'ok.json': JSON.stringify(request(1, 'still-read')),
    });
    const out = await readTraceFiles([d], { maxDecompressedBytes: 1024 * 1024 });
    expect(out.spans.map(s => s.name)).toEqual(['still-read']);
    expect(out.problems).toEqual([
      {
        file: join(d, 'bomb.json.gz'),
        message: 'gzip content exceeds 1048576 bytes when decompressed',
      },
    ]);
  });

  it('refuses a plain file past the size bound from its size, having read none of it, and reads one at the bound', async () => {
    // A 1 GB plain .json file was read whole (1.06 GB of memory) to fail with V8's "Cannot create
    // a string longer than 0x1fffffe8 characters"; then the bound and one byte of it were read,
    // though stat had said it was past. Here the bound is 1 MiB and the file a sparse 64 MiB:
    // every byte a file handle reads is counted (it read 2 MiB + 1 + the small file; now 1 MiB +
    // the small file).
    const bound = 1024 * 1024;
    const atBound = JSON.stringify(request(1, 'at-the-bound'));
    const small = JSON.stringify(request(2, 'small'));
    const d = dir({
      'a-big.json': '',
      'b-at.json': atBound.padEnd(bound, ' '),
      'c-ok.json': small,
    });
    truncateSync(join(d, 'a-big.json'), 64 * bound);
    let out: Awaited<ReturnType<typeof readTraceFiles>> | undefined;
    const bytesRead = await fileBytesRead(
      async () => (out = await readTraceFiles([d], { maxDecompressedBytes: bound })),
    );
    expect(out?.spans.map(s => s.name)).toEqual(['at-the-bound', 'small']);
    expect(out?.problems).toEqual([
      {
        file: join(d, 'a-big.json'),
        message: 'file exceeds 1048576 bytes, the bound on a trace file',
      },
    ]);
    expect(bytesRead).toBe(bound + small.length);
    expect(out?.bytes).toBe(bytesRead);
  });

  it('spanscore score rejects a plain file past --max-decompressed-mb, reads the other and exits 2', async () => {
    const d = dir({
      'suite.yaml': 'scorers: [tool_correctness]\ntestCases:\n  - { id: a, expectedTools: [x] }\n',
      'traces/a-big.json': '',
      'traces/b-ok.json': JSON.stringify(request(1, 'read')),
    });
    truncateSync(join(d, 'traces', 'a-big.json'), 4 * 1024 * 1024);
    const { code, stderr } = await runCli([
      'score',
      '--suite',
      join(d, 'suite.yaml'),
      '--format',
      'json',
      '--max-decompressed-mb',
      '1',
      join(d, 'traces'),
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `spanscore: rejected ${join(d, 'traces', 'a-big.json')}: file exceeds 1048576 bytes, the bound on a trace file\n`,
    );
    // b-ok.json's trace was read: it names no test case, so it is one that matched none.
    expect(stderr).toContain('1 trace(s) matched no test case');
  });

  it('names a missing input and a file that is not valid JSON', async () => {
    const d = dir({ 'broken.json': '{"resourceSpans": [}' });
    const out = await readTraceFiles([join(d, 'nope.json'), join(d, 'broken.json')]);
    expect(out.problems).toEqual([
      { file: join(d, 'nope.json'), message: 'cannot read: ENOENT' },
      { file: join(d, 'broken.json'), message: expect.stringMatching(/^invalid JSON: /) },
    ]);
  });

  it('names JSON that parses but is not an OTLP export in a warning, and reads it as zero spans', async () => {
    const d = dir({
      'nope.json': '{"nope":1}',
      'empty.json': '{}',
      'lines.jsonl': `${JSON.stringify(request(3, 'good'))}\n{"spans":[],"a":1,"b":2,"c":3,"d":4,"e":5}\n`,
      'good.json': JSON.stringify(request(4, 'also good')),
    });
    const out = await readTraceFiles([d]);
    expect(out.spans.map(s => s.name)).toEqual(['also good', 'good']);
    expect(out.problems).toEqual([]);
    expect(out.warnings).toEqual([
      {
        file: join(d, 'empty.json'),
        message:
          'not an OTLP trace or logs export: no resourceSpans or resourceLogs; read as zero spans',
      },
      {
        file: join(d, 'lines.jsonl'),
        record: 'line 2',
        message:
          'not an OTLP trace or logs export: no resourceSpans or resourceLogs (it has spans, a, b, c, d, …); read as zero spans',
      },
      {
        file: join(d, 'nope.json'),
        message:
          'not an OTLP trace or logs export: no resourceSpans or resourceLogs (it has nope); read as zero spans',
      },
    ]);
  });

  it('names at most 100 problems and 100 warnings of a file, and counts the rest', async () => {
    // 100,000 bad lines and 100,000 lines of JSON that is no export: 600 KB, once 200,000 entries.
    const d = dir({
      'bad.jsonl': '1\n'.repeat(100_000),
      'empty.jsonl': '{}\n'.repeat(100_000),
      'one.jsonl': '2\n',
    });
    const read = await readTraceFiles([d]);
    expect(read.problems).toHaveLength(102);
    expect(read.problems[99]).toMatchObject({ record: 'line 100' });
    expect(read.problems[100]).toEqual({
      file: join(d, 'bad.jsonl'),
      message: 'and 99900 more problems in this file, not listed one by one',
      unlisted: 99_900,
    });
    expect(read.problems[101]).toMatchObject({ file: join(d, 'one.jsonl'), record: 'line 1' });
    expect(read.warnings).toHaveLength(101);
    expect(read.warnings[100]!.message).toBe(
      'and 99900 more warnings in this file, not listed one by one',
    );
    expect(read.requests).toBe(200_001);
  });

  it('lists a folder of more files than a call takes arguments', () => {
    // A sub-folder's list spread into push() passed one argument a file: past about 125,000 with
    // Node's default stack (a folder of 200,000 files threw a RangeError and read nothing). With a
    // stack of 100 KB a call takes about 12,000, so 20,000 files find it in a second, where
    // 200,000 took minutes to make on a busy host.
    const d = mkdtempSync(join(tmpdir(), 'spanscore-read-'));
    mkdirSync(join(d, 'sub'));
    try {
      for (let i = 0; i < 20_000; i++) writeFileSync(join(d, 'sub', `${i}.json`), '');
      const listed = execFileSync(
        process.execPath,
        ['--stack-size=100', '--import', 'tsx', LISTED_CHILD, d],
        { encoding: 'utf8' },
      );
      // Every file is listed before the first is read (the child stops there).
      expect(listed).toBe('20000');
    } finally {
      rmSync(d, { recursive: true });
    }
  }, 60_000);

  it('calls onFile after each file', async () => {
    const d = dir({
      'a.json': JSON.stringify(request(1, 'a')),
      'b.json': JSON.stringify(request(2, 'b')),
    });
    const seen: Array<[number, number]> = [];
    await readTraceFiles([d], { onFile: (_f, done, total) => seen.push([done, total]) });
    expect(seen).toEqual([
      [1, 2],
      [2, 2],
    ]);
  });
});
