import { readingBench } from './reading-bench.js';
for (let i = 0; i < 2; i++) {
  const r = await readingBench(5);
  console.log(
    'ours',
    Math.round(r.decodePb.median),
    'protobufjs',
    Math.round(r.protobufjs.median),
    (r.decodePb.median / r.protobufjs.median).toFixed(2),
  );
}
