/**
 * One budget figure, measured in this process and printed as JSON on stdout:
 * `node --expose-gc --single-threaded --max-semi-space-size=16 --import tsx bench/budget-figures.child.ts FIGURE [ROOT]`,
 * where FIGURE is `allocation-memory`, `allocation-redis` or `allocation-redis-layout2`
 * ({@link pipelineAllocation} with that results store, the last writing `results.layout: 2`; Redis
 * at `REDIS_URL`, default the local one), `instructions-memory`, `instructions-redis` or
 * `instructions-redis-layout2` (the pass with that results store between {@link callgrindBracket}'s calls, for a process callgrind runs:
 * `instructionsPerSpan`) or `held`
 * ({@link heldBytesPerSpan}),
 * and ROOT the checkout whose built `dist/` runs (default this tree). A process per figure: each
 * starts from the same heap, and none is measured beside another's garbage.
 */
import { heldBytesPerSpan } from './held-bytes-per-span.js';
import {
  callgrindBracket,
  INSTRUCTIONS_WARM_UP_REQUESTS,
  slowClock,
} from './instructions-per-span.js';
import { pipelineAllocation } from './pipeline-allocation.js';
import { sideModules } from './side-modules.js';

const [figure, root] = process.argv.slice(2);
const counted =
  figure === 'instructions-memory' ||
  figure === 'instructions-redis' ||
  figure === 'instructions-redis-layout2';
if (counted) slowClock(); // before the code under count loads
const m = await sideModules(root);
let out: unknown;
if (
  figure === 'allocation-memory' ||
  figure === 'allocation-redis' ||
  figure === 'allocation-redis-layout2'
)
  out = await pipelineAllocation(m, {
    store: figure === 'allocation-memory' ? 'memory' : 'redis',
    ...(figure === 'allocation-redis-layout2' && { layout: 2 as const }),
    ...(process.env.REDIS_URL && { redisUrl: process.env.REDIS_URL }),
  });
else if (counted)
  out = await pipelineAllocation(m, {
    store: figure === 'instructions-memory' ? 'memory' : 'redis',
    ...(figure === 'instructions-redis-layout2' && { layout: 2 as const }),
    ...(process.env.REDIS_URL && { redisUrl: process.env.REDIS_URL }),
    warmUpRequests: INSTRUCTIONS_WARM_UP_REQUESTS,
    collectFirst: false,
    storePerPass: false,
    bracket: callgrindBracket(),
  });
else if (figure === 'held') out = await heldBytesPerSpan(m);
else
  throw new Error(
    `unknown figure ${String(figure)}: allocation-memory, allocation-redis, allocation-redis-layout2, instructions-memory, instructions-redis, instructions-redis-layout2 or held`,
  );
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
