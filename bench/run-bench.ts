/**
 * `npm run bench`: measures, in one run, deterministic scoring against `@mastra/evals`' code scorer
 * on the same 10,000 generated cases, and OTLP trace reading (protobuf and JSON) in spans/s, with
 * JSON.parse of the same payloads as the baseline. Every figure is the median of several rounds;
 * ratios compare figures measured side by side here. Writes bench/results/latest.json.
 *
 * Options: --rounds N (default 5).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { endToEndBench } from './end-to-end-bench.js';
import { readingBench } from './reading-bench.js';
import { scoringBench } from './scoring-bench.js';

const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 5;
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
const ratio = (a: number, b: number): string => `${(a / b).toFixed(1)}×`;

console.log(
  `spanscore bench: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, median of ${rounds} rounds\n`,
);

const scoring = await scoringBench(rounds);
console.log(`Deterministic scoring, ${fmt(scoring.cases)} generated cases (tool_call_accuracy)`);
console.log(
  `  ${scoring.mastra.label.padEnd(62)} ${fmt(scoring.mastra.median).padStart(12)} cases/s   1.0×`,
);
console.log(
  `  ${scoring.scoreOnly.label.padEnd(62)} ${fmt(scoring.scoreOnly.median).padStart(12)} cases/s   ${ratio(scoring.scoreOnly.median, scoring.mastra.median)}`,
);
console.log(
  `  ${scoring.normalizeAndScore.label.padEnd(62)} ${fmt(scoring.normalizeAndScore.median).padStart(12)} cases/s   ${ratio(scoring.normalizeAndScore.median, scoring.mastra.median)}`,
);
const vsMastra = (r: { median: number }): number => r.median / scoring.mastra.median;
console.log(
  `  agreement with Mastra (orderMode: 'mastra'): ${(scoring.mastraAgreement * 100).toFixed(2)}% of cases`,
);
console.log(
  `  goal ≥ 100× Mastra: scoring ${vsMastra(scoring.scoreOnly) >= 100 ? 'met' : 'NOT met'} (${vsMastra(scoring.scoreOnly).toFixed(0)}×); extraction from spans + scoring ${vsMastra(scoring.normalizeAndScore) >= 100 ? 'met' : 'NOT met'} (${vsMastra(scoring.normalizeAndScore).toFixed(0)}×)\n`,
);

const reading = await readingBench(rounds);
console.log(
  `Trace reading, ${fmt(reading.spans)} agent spans in ${reading.spansPerRequest}-span requests (${reading.bytesPerSpan.protobuf.toFixed(0)} B/span protobuf, ${reading.bytesPerSpan.json.toFixed(0)} B/span JSON)`,
);
for (const r of [
  reading.parseOnly,
  reading.decodeJson,
  reading.protobufjs,
  reading.decodePb,
  reading.filesJson,
  reading.filesPb,
]) {
  console.log(
    `  ${r.label.padEnd(62)} ${fmt(r.median).padStart(12)} spans/s   ${ratio(r.median, reading.parseOnly.median)}`,
  );
}
console.log('  (ratios against JSON.parse alone of the same JSON payloads)');
console.log(
  `  decodeOtlpProtobuf vs protobufjs static decode: ${ratio(reading.decodePb.median, reading.protobufjs.median)} (goal ≥ 1.5×)`,
);

const e2e = await endToEndBench();
console.log(
  `\nEnd to end (bullmq driver, local Redis): ${fmt(e2e.spans)} spans in ${fmt(e2e.traces)} traces over HTTP → Redis → worker → scored → evaluation spans exported`,
);
console.log(
  `  ${fmt(e2e.spansPerSecond)} spans/s (${e2e.seconds.toFixed(2)} s, first request to last evaluation span, 200 ms settle window included)`,
);

mkdirSync(new URL('results/', import.meta.url), { recursive: true });
const out = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  rounds,
  scoring,
  reading,
};
writeFileSync(new URL('results/latest.json', import.meta.url), `${JSON.stringify(out, null, 2)}\n`);
console.log('\nwrote bench/results/latest.json');
