#!/usr/bin/env node
import { main } from './main.js';

// A reader that stops early (`spanscore score … | head`) closes the pipe: stop quietly, as Unix
// tools do, instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });

process.exitCode = await main(process.argv.slice(2));
