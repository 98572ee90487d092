import { loadBench } from './load-bench.js';
console.log(JSON.stringify(await loadBench({ workers: 1, seconds: 10, profileDir: '/tmp/prof' })));
