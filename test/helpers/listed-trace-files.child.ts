/**
 * Lists the trace files under a folder (argv[2]) with `readTraceFiles` and prints how many it
 * listed: run by read-trace-files.test.ts in a process with a small stack (`--stack-size`), where
 * a call takes about a tenth of the arguments it takes by default, so that a folder of 20,000
 * files finds what 200,000 find with the default stack.
 */
import { readTraceFiles } from '../../src/ingest/read-trace-files.js';

const stop = new Error('listed');
let listed = 0;
await readTraceFiles([process.argv[2]!], {
  onFile: (_file, _done, total) => {
    listed = total;
    throw stop;
  },
}).catch((error: unknown) => {
  if (error !== stop) throw error;
});
process.stdout.write(String(listed));
