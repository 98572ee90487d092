import { countInstructions } from './instructions-per-span.js';
const c = await countInstructions();
console.log(JSON.stringify({ perSpan: c.perSpan, w: c.withoutCollectorPerSpan }));
