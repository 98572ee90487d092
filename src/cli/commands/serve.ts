import { createServer } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import { Command, InvalidArgumentError } from 'commander';
import { SpanscoreError } from '../../errors/spanscore-error.js';
import { loadConfig } from '../../config/load-config.js';
import { collect } from '../option-parsers.js';
import { DEMO_SUITE } from '../../demo/demo-suite.js';
import { boundedHeapMb, needsHeapBound, runWithBoundedHeap } from '../bounded-heap.js';
import type { CliIo } from '../io.js';

/** `spanscore serve`: the OTLP receiver plus workers, until SIGTERM/SIGINT. */
export function serveCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('serve')
    .usage(
      '[--config FILE] [--suite FILE]... [--port N] [--host HOST] [--results FILE] [--no-worker] [--demo]',
    )
    .description(
      'receive OTLP traces on /v1/traces (and GenAI log events on /v1/logs), score complete traces, write evaluation spans back',
    )
    .option('-c, --config <file>', 'config file (YAML or JSON)')
    .option('-s, --suite <file>', 'suite whose test cases are scored (repeatable)', collect, [])
    .option('-p, --port <n>', 'receiver port (default 4318)', parsePort)
    .option('--host <host>', 'receiver host (default 0.0.0.0)')
    .option('--results <file>', 'also append every result to this JSON Lines file')
    .option(
      '--no-worker',
      'bullmq driver: run the receiver only, workers run elsewhere (spanscore worker)',
    )
    .option(
      '--demo',
      'also run the sample agent once against this serve (its suite loaded), so the results page has scores at once',
    )
    .addHelpText(
      'after',
      `
Without Redis (no REDIS_URL), the memory driver runs everything in this process; nothing survives a
restart. With REDIS_URL the bullmq driver keeps spans and jobs in Redis, and \`spanscore worker\`
processes on any host share the work. Evaluation spans go to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT /
OTEL_EXPORTER_OTLP_ENDPOINT (or export.url in the config). Every setting: docs/configuration.md.`,
    )
    .action(
      async (opts: {
        config?: string;
        suite: string[];
        port?: number;
        host?: string;
        results?: string;
        worker: boolean;
        demo?: boolean;
      }) => {
        const config = await loadConfig({
          ...(opts.config && { file: opts.config }),
          overrides: {
            'receiver.port': opts.port,
            'receiver.host': opts.host,
            'export.resultsFile': opts.results,
            ...((opts.suite.length || opts.demo) && {
              suites: [...opts.suite, ...(opts.demo ? [DEMO_SUITE] : [])],
            }),
          },
        });
        const log = (line: string): unknown => io.stderr.write(`${line}\n`);
        // A busy port is the commonest first error: said in one line, before anything starts.
        await assertPortFree(config.receiver.port, config.receiver.host);
        const memory = config.queue.driver === 'memory';
        const bounded = memory && needsHeapBound(config.queue.memoryHeapMb);
        // (`--no-worker` with the memory driver is refused by `startService`, which says why.)
        // (Not in the thread `runWithBoundedHeap` started: that is the one-thread service.)
        const split =
          memory && config.queue.memoryThreads === 2 && opts.worker && boundedHeapMb() === null;
        if (bounded && !split) {
          setExitCode(await runWithBoundedHeap(config.queue.memoryHeapMb, log));
          return;
        }
        // Loaded here, not above: a `serve` that only starts its service in a bounded thread
        // never loads the service into its own heap.
        const { untilShutdown } = await import('../../server/graceful-shutdown.js');
        // Only the starter that runs: the two-thread one never loads the one-thread driver's
        // modules into the receiving thread.
        const service = split
          ? await (
              await import('../../server/start-split-service.js')
            ).startSplitService(config, {
              ...(bounded && { heapMb: config.queue.memoryHeapMb }),
              log,
            })
          : await (
              await import('../../server/start-service.js')
            ).startService(config, { receiver: true, workers: opts.worker }, { log });
        // Signals are handled before the service says it is ready: a supervisor (or a test)
        // that stops it right after that line gets a clean shutdown.
        const stopped = untilShutdown(service, config.shutdownDeadlineMs, log);
        if (memory) log(heapLine(config.queue.memoryHeapMb, split && bounded));
        log(`spanscore serve: listening on ${service.url} (${service.driver} driver)`);
        log(`spanscore serve: results page at ${browsable(service.uiUrl!)}`);
        const traffic = opts.demo
          ? await (
              await import('../../demo/send-sample-traffic.js')
            ).sendSampleTraffic(browsable(service.url!))
          : undefined;
        if (traffic)
          log(
            `spanscore serve: --demo: the sample agent sent ${traffic.runs.length} runs here (${traffic.testCases} test cases of the demo suite, ${traffic.runs.length - traffic.testCases} for tool health); their scores are on the results page in a few seconds`,
          );
        setExitCode(await stopped);
        await traffic?.shutdown();
      },
    );
}

/** `spanscore worker`: workers only, on the bullmq driver. */
export function workerCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('worker')
    .usage('[--config FILE] [--suite FILE]... [--results FILE] [--metrics-port PORT]')
    .description('score traces from the Redis queue (bullmq driver); run as many as you need')
    .option('-c, --config <file>', 'config file (YAML or JSON)')
    .option('-s, --suite <file>', 'suite whose test cases are scored (repeatable)', collect, [])
    .option('--results <file>', 'also append every result to this JSON Lines file')
    .option('--metrics-port <port>', 'serve /metrics and /healthz on this port', parsePort)
    .action(
      async (opts: {
        config?: string;
        suite: string[];
        results?: string;
        metricsPort?: number;
      }) => {
        const config = await loadConfig({
          ...(opts.config && { file: opts.config }),
          overrides: {
            'worker.metricsPort': opts.metricsPort,
            'export.resultsFile': opts.results,
            ...(opts.suite.length && { suites: opts.suite }),
          },
        });
        const log = (line: string): unknown => io.stderr.write(`${line}\n`);
        if (config.queue.driver !== 'bullmq') {
          log(
            'spanscore worker: needs Redis (set REDIS_URL); without it, `spanscore serve` runs the workers itself',
          );
          setExitCode(2);
          return;
        }
        const [{ startService }, { untilShutdown }] = await Promise.all([
          import('../../server/start-service.js'),
          import('../../server/graceful-shutdown.js'),
        ]);
        const service = await startService(config, { receiver: false, workers: true }, { log });
        const stopped = untilShutdown(service, config.shutdownDeadlineMs, log);
        log(
          `spanscore worker: taking traces from Redis (concurrency ${config.worker.concurrency})`,
        );
        if (service.metricsUrl) log(`spanscore worker: metrics at ${service.metricsUrl}`);
        setExitCode(await stopped);
      },
    );
}

/**
 * Throws `SS_USAGE` (exit 2) with the `--port` hint when `port` cannot be listened on at `host`
 * (in use, or not allowed). Port 0 (any free port) always can.
 */
async function assertPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ port, host, exclusive: true }, resolve);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SpanscoreError(
      'SS_USAGE',
      code === 'EADDRINUSE'
        ? `port ${port} is already in use on ${host}: start serve on another one with --port N (or SPANSCORE_PORT), or stop what listens there`
        : `cannot listen on ${host}:${port} (${code ?? (error as Error).message}): choose another port with --port N, or another address with --host`,
    );
  } finally {
    await new Promise(resolve => probe.close(resolve));
  }
}

function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('expected a port number 0-65535');
  return n;
}

/** A URL a browser on this machine opens: a wildcard listen address becomes localhost. */
function browsable(url: string): string {
  return url.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, 'http://localhost');
}

/**
 * What the memory driver's heap is bounded by, and the setting that changes it. `scoringThread`:
 * on two threads, the scoring thread's is bounded to `memoryHeapMb`.
 */
function heapLine(memoryHeapMb: number, scoringThread: boolean): string {
  if (scoringThread)
    return `spanscore: memory driver: two threads, receiving on one; the scoring thread's V8 heap bounded to ${memoryHeapMb} MB (queue.memoryHeapMb, SPANSCORE_MEMORY_HEAP_MB; raise it with the buffer and results bounds; queue.memoryThreads: 1 runs everything on one)`;
  const bounded = boundedHeapMb();
  if (bounded !== null)
    return `spanscore: memory driver: V8 heap bounded to ${bounded} MB (queue.memoryHeapMb, SPANSCORE_MEMORY_HEAP_MB; raise it with the buffer and results bounds)`;
  const limit = Math.round(getHeapStatistics().heap_size_limit / 1024 / 1024);
  return memoryHeapMb === 0
    ? `spanscore: memory driver: V8 heap limit ${limit} MB, Node's own (queue.memoryHeapMb: 0)`
    : `spanscore: memory driver: V8 heap limit ${limit} MB, from --max-old-space-size (kept instead of queue.memoryHeapMb ${memoryHeapMb})`;
}
