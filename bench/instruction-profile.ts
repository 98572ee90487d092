import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A function or a group of them, with the instructions it ran per scored span. */
export interface InstructionRow {
  name: string;
  perSpan: number;
  /** Of the whole pass's instructions. */
  share: number;
}

/** Where {@link instructionProfile} put the pass's instructions. */
export interface InstructionProfile {
  total: number;
  /** By function, most first: JavaScript by name and place (tiers merged), the rest by symbol. */
  functions: InstructionRow[];
  /**
   * By where the code lives: a `src/` folder of the build (`normalize`, `results`, …), a package,
   * Node's own JavaScript, or what V8 runs itself (`v8: gc`, `v8: compiler`, `v8: json`,
   * `v8: builtins`, `v8: other`).
   */
  stages: InstructionRow[];
}

/**
 * Where V8 writes the map of process `pid`'s compiled code (`--perf-basic-prof`). Under valgrind
 * the program runs in valgrind's own process, so that is the pid of the `valgrind` child.
 */
export function codeMapOf(pid: number | undefined): string {
  return `/tmp/perf-${String(pid)}.map`;
}

/**
 * Node's flags for V8 to write the map {@link codeMapOf} names: `--perf-basic-prof`, with V8's
 * log (which that flag turns on) sent to `logDir/v8.log`; without it each run left two
 * `isolate-*-v8.log` files in the working directory.
 */
export function codeMapFlags(logDir: string): string[] {
  return ['--perf-basic-prof', `--logfile=${join(logDir, 'v8.log')}`, '--no-logfile-per-isolate'];
}

/**
 * Valgrind's flags for a counted run of Node, its profile written to `profile`: counting off
 * until the bracket turns it on (`callgrindBracket`), and a profile per thread, so that
 * {@link keepMainThread} can keep the main thread's. Node runs other threads beside it (tsx's
 * module loader, libuv's pool): an isolate of its own whose work lands by the clock, not by what
 * the bracket holds. Once, in CI on a fresh clone, 57 million instructions (a fifth of the
 * count) landed in one run's bracket and not in another's; counted apart, the loader's thread
 * ran 1,600-2,100 in 18 runs and the main thread's counts were 0.001% apart.
 */
export function callgrindFlags(profile: string): string[] {
  return [
    '--tool=callgrind',
    '--instr-atstart=no',
    '--separate-threads=yes',
    `--callgrind-out-file=${profile}`,
  ];
}

/**
 * After a run with {@link callgrindFlags}: the main thread's profile (`PROFILE-01`) renamed to
 * `profile`, every other thread's removed; returns the instructions the main thread counted (its
 * `totals`). Throws when the main thread's profile is missing.
 */
export function keepMainThread(profile: string): number {
  const dir = dirname(profile);
  const main = `${profile}-01`;
  const threads = readdirSync(dir)
    .filter(f => f.startsWith(`${basename(profile)}-`) && /-\d+$/.test(f))
    .map(f => join(dir, f));
  if (!threads.includes(main))
    throw new Error(`callgrind wrote no profile of the main thread (${main})`);
  for (const file of threads) if (file !== main) rmSync(file, { force: true });
  renameSync(main, profile);
  return Number(/^totals:\s*(\d+)/m.exec(readFileSync(profile, 'utf8'))?.[1] ?? 0);
}

/** V8's map of compiled code: start addresses (sorted), sizes and names. */
interface CodeMap {
  starts: number[];
  sizes: number[];
  names: string[];
}

/**
 * Where a counted pass ran its instructions, from callgrind's profile of it (`countInstructions`
 * with `keep`) and V8's map of the code it compiled (`--perf-basic-prof`, `PROFILE.map`).
 * Callgrind sees V8's compiled JavaScript as bare addresses; the map names each (its function,
 * file, line and column), so this is a CPU profile of the pass that no host's load or clock
 * moves, self instructions per function. A function inlined into another counts as that other's.
 * Reads the profile through `callgrind_annotate` (valgrind's own). With `named: false` the map is
 * not read, and compiled JavaScript is one row (the stages of V8's own C++ are still told apart).
 */
export function instructionProfile(
  profile: string,
  spans: number,
  options: { named?: boolean } = {},
): InstructionProfile {
  const annotated = execFileSync(
    'callgrind_annotate',
    // No source annotation: its lines have the rows' shape and would be counted again.
    ['--inclusive=no', '--threshold=100', '--auto=no', profile],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  // Unnamed (`named: false`), compiled JavaScript counts as one stage: no map is read.
  const map = options.named === false ? '' : readFileSync(`${profile}.map`, 'utf8');
  return summarizeInstructions(annotated, map, spans);
}

/** {@link instructionProfile} of `callgrind_annotate`'s text and V8's map's text. */
export function summarizeInstructions(
  annotated: string,
  map: string,
  spans: number,
): InstructionProfile {
  const code = codeMap(map);
  let total = 0;
  const functions = new Map<string, number>();
  const stages = new Map<string, number>();
  for (const line of annotated.split('\n')) {
    const row = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.+)$/.exec(line);
    if (!row) continue;
    const n = Number(row[1]!.replaceAll(',', ''));
    if (row[2]!.startsWith('PROGRAM TOTALS')) {
      total = n;
      continue;
    }
    const { name, stage } = nameOf(row[2]!, code);
    functions.set(name, (functions.get(name) ?? 0) + n);
    stages.set(stage, (stages.get(stage) ?? 0) + n);
  }
  const rows = (m: Map<string, number>): InstructionRow[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .map(([name, n]) => ({ name, perSpan: n / spans, share: total ? n / total : 0 }));
  return { total, functions: rows(functions), stages: rows(stages) };
}

function codeMap(text: string): CodeMap {
  const entries: Array<[number, number, string]> = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.+)$/.exec(line);
    if (m) entries.push([parseInt(m[1]!, 16), parseInt(m[2]!, 16), m[3]!]);
  }
  entries.sort((a, b) => a[0] - b[0]);
  return {
    starts: entries.map(e => e[0]),
    sizes: entries.map(e => e[1]),
    names: entries.map(e => e[2]),
  };
}

/** A profile line's function (`file:function [object]`) named, and the stage it counts in. */
function nameOf(fn: string, code: CodeMap): { name: string; stage: string } {
  const address = /^\?\?\?:0x([0-9a-f]+)/.exec(fn);
  if (address) {
    const js = codeAt(code, parseInt(address[1]!, 16));
    if (js === undefined) return { name: 'compiled code not in the map', stage: 'unnamed' };
    return jsName(js);
  }
  const symbol = fn.replace(/^[^:]*:/, '').replace(/ \[[^\]]*\]$/, '');
  return { name: symbol, stage: `v8: ${v8Part(symbol)}` };
}

/**
 * How many entries before the last one starting at or below an address are also tried: V8 reuses
 * freed code space, so a newer, smaller entry may start between an older one's start and the
 * address that older one covers.
 */
const OVERLAPS_TRIED = 64;

/** The name of the code holding `address`, if the map has it. */
function codeAt(code: CodeMap, address: number): string | undefined {
  let lo = 0;
  let hi = code.starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (code.starts[mid]! <= address) lo = mid + 1;
    else hi = mid - 1;
  }
  for (let i = hi; i >= 0 && i > hi - OVERLAPS_TRIED; i--)
    if (address < code.starts[i]! + code.sizes[i]!) return code.names[i];
  return undefined;
}

/**
 * A map entry (`JS:*name file:///…/dist/normalize/x.js:27:40`, `*` optimized, `^` baseline, `~`
 * interpreted) without its tier, with its file from the build's or a package's root; its stage.
 */
function jsName(entry: string): { name: string; stage: string } {
  if (!entry.startsWith('JS:')) return { name: entry, stage: `v8: ${v8Part(entry)}` };
  const name = entry
    .slice(3)
    .replace(/^[*^~+]/, '')
    .replace(/file:\/\/\S*?\/dist\//, '')
    .replace(/\S*\/node_modules\//, '')
    .replace(/^ /, '(anonymous) ');
  // A package first: many ship a `dist/` of their own.
  const stage =
    /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(entry)?.[1] ??
    (/\/dist\//.test(entry) ? (/\/dist\/([^/\s]+)\//.exec(entry)?.[1] ?? 'dist') : undefined) ??
    (entry.includes('node:') ? 'node' : 'other JavaScript');
  return { name, stage };
}

/** What part of V8 (or the process) a C++ or builtin symbol belongs to. */
function v8Part(symbol: string): string {
  if (
    /Scaveng|heap::|Heap::|MarkCompact|Mark(ing|er)|MinorM|Sweeper|Evacuat|Pretenuring|MemoryAllocator|GCTracer|MemoryReducer|RememberedSet|SlotSet|cppgc|WriteBarrier/.test(
      symbol,
    )
  )
    return 'gc';
  if (/compiler::|maglev|turboshaft|Turboshaft/.test(symbol)) return 'compiler';
  if (/Json/.test(symbol)) return 'json';
  if (symbol.startsWith('Builtins_')) return 'builtins';
  return 'other';
}
