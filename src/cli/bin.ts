#!/usr/bin/env node
import * as module from 'node:module';

// Node 22.8 and later keep the bytecode of the modules a run compiled, in a folder under the
// system's temporary one, and reuse it on the next start (NODE_DISABLE_COMPILE_CACHE=1 turns it
// off; NODE_COMPILE_CACHE names another folder). A CLI loads some 300 modules before it does
// anything; on Node 20, which lacks it, nothing changes. Enabled before `main` is imported, so
// that every module after this one is cached.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { main } = await import('./main.js');

// A reader that stops early (`spanscore score … | head`) closes the pipe: stop quietly, as Unix
// tools do, instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });

process.exitCode = await main(process.argv.slice(2));

// Every command has finished its work and written its output by now. A handle that something
// left open (a keep-alive socket of an exporter, a client still reconnecting) must not keep the
// process from exiting: give it two seconds, then exit with the command's code. (Writes to files,
// pipes and terminals are synchronous on Linux and macOS, so nothing written is cut short.)
setTimeout(() => process.exit(), 2000).unref();
