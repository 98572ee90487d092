import { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { DEMO_SUITE } from '../../demo/demo-suite.js';
import { sendSampleTraffic, type SampleTraffic } from '../../demo/send-sample-traffic.js';
import { createOtlpHttpReceiver } from '../../ingest/otlp-http-receiver.js';
import type { SpanDigest } from '../../ingest/span-digest.js';
import type { TraceResult } from '../../score/trace-run.js';
import { formatTable } from '../../report/format-table.js';
import { countOutcomes, traceResultRows } from '../../report/result-row.js';
import { untilShutdown } from '../../server/graceful-shutdown.js';
import { startService } from '../../server/start-service.js';
import { useColor, type CliIo } from '../io.js';

/**
 * `spanscore demo`: starts `serve` in this process (memory driver, no Redis), runs a sample agent
 * whose tools use `@trace` through three test cases and three production runs (scored for tool
 * health), sends its traces over OTLP/HTTP, and prints the scores; the evaluation spans go to a
 * local OTLP sink standing in for Jaeger or Tempo.
 */
export function demoCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('demo')
    .usage('[--serve] [--port PORT]')
    .description(
      'run a sample agent through a local `spanscore serve` and print its scores (no Redis needed)',
    )
    .option('--serve', 'keep serving the results page (/ui/) after the run, until Ctrl-C')
    .option('--port <port>', 'port of the local serve (default: any free port)')
    .action(async (opts: { serve?: boolean; port?: string }) => {
      const log = (line: string): unknown => io.stderr.write(`${line}\n`);
      const written: SpanDigest[] = [];
      const backend = createOtlpHttpReceiver({
        sink: { accept: spans => (written.push(...spans), Promise.resolve()) },
      });
      await backend.listen({ port: 0, host: '127.0.0.1' });
      const backendPort = (backend.server.address() as { port: number }).port;

      const results: TraceResult[] = [];
      const config = await loadConfig({
        env: {},
        overrides: {
          'queue.driver': 'memory',
          'receiver.port': opts.port ?? 0,
          'receiver.host': '127.0.0.1',
          'assembly.settleMs': 300,
          'export.logResults': false,
          'export.url': `http://127.0.0.1:${backendPort}/v1/traces`,
          suites: [DEMO_SUITE],
        },
      });
      const service = await startService(
        config,
        { receiver: true, workers: true },
        { log: () => undefined, onResult: r => results.push(r) },
      );
      log(
        `spanscore demo: serve listening on ${service.url}; evaluation spans go to a local OTLP sink`,
      );

      let traffic: SampleTraffic | undefined;
      try {
        traffic = await sendSampleTraffic(service.url!);
        const cases = traffic.runs;
        log(
          `spanscore demo: the sample agent made ${cases.length} runs (${traffic.testCases} test cases, ${cases.length - traffic.testCases} for tool health); waiting for their traces to be scored`,
        );
        const deadline = Date.now() + 15_000;
        while (results.length < cases.length && Date.now() < deadline)
          await new Promise(r => setTimeout(r, 50));
        const rows = results
          .flatMap(r => traceResultRows(r.trace, r.testCaseId, r.outcomes))
          .sort((a, b) => a.testCaseId.localeCompare(b.testCaseId));
        io.stdout.write(formatTable(rows, countOutcomes(rows), 0, useColor(io.stdout)));
        log(
          `spanscore demo: ${written.length} evaluation spans were written back into the agent's traces`,
        );
        setExitCode(results.length === cases.length ? 0 : 1);
        if (results.length < cases.length)
          log(
            `spanscore demo: only ${results.length} of ${cases.length} traces were scored in time`,
          );
        if (opts.serve) {
          const stopped = untilShutdown(service, config.shutdownDeadlineMs, log);
          log(`spanscore demo: results page at ${service.uiUrl} (Ctrl-C to stop)`);
          setExitCode(await stopped);
        } else log(`spanscore demo: run with --serve to keep the results page (/ui/) open`);
      } finally {
        await service.close();
        await traffic?.shutdown();
        await backend.close();
      }
    });
}
