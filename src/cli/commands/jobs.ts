import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { createJobsClient, JOB_QUEUE_NAMES, type JobQueueName } from '../../queue/bullmq-jobs.js';
import { createRedisConnection, redisTargetOf, whenReady } from '../../redis/redis-connection.js';
import type { CliIo } from '../io.js';
import { terminalText } from '../../report/terminal-text.js';

/**
 * `spanscore jobs`: the BullMQ driver's work by state, the newest failed, delayed and waiting jobs
 * with why they failed; `spanscore jobs retry --failed [--filter TEXT] [--queue trace|judge]`
 * re-drives failed jobs, safely while workers run.
 */
export function jobsCommand(io: CliIo, setExitCode: (code: number) => void): Command {
  const jobs = new Command('jobs')
    .usage('[--config FILE] [--limit N] [--json]')
    .description(
      'list queued, delayed and failed work (bullmq driver); `jobs retry --failed` re-drives failed jobs',
    )
    .option('-c, --config <file>', 'config file (YAML or JSON)')
    .option('-n, --limit <n>', 'jobs listed per state and queue', positive, 20)
    .option('--json', 'print JSON')
    .action(async (opts: { config?: string; limit: number; json?: boolean }) => {
      await withClient(opts.config, io, setExitCode, async client => {
        const report = await client.report(opts.limit);
        if (opts.json) {
          io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
          return;
        }
        for (const [queue, counts] of Object.entries(report.counts))
          io.stdout.write(
            `${queue.padEnd(6)} ${Object.entries(counts)
              .map(([state, n]) => `${state} ${n}`)
              .join(', ')}\n`,
          );
        for (const job of report.jobs) {
          const age = job.finishedAtUnixMs ?? job.createdAtUnixMs;
          io.stdout.write(
            `${job.state.padEnd(8)} ${job.queue.padEnd(6)} trace ${terminalText(job.traceId)} attempts ${job.attemptsMade} ${new Date(age).toISOString()}${job.reason ? `  ${terminalText(job.reason)}` : ''}\n`,
          );
        }
      });
    });
  jobs.addCommand(
    new Command('retry')
      .usage('--failed [--filter TEXT] [--queue QUEUE] [--config FILE]')
      .description('move failed jobs back to waiting (workers may keep running)')
      .requiredOption('--failed', 'retry failed jobs (the only kind that can be retried)')
      .option('--filter <text>', 'only jobs whose trace id or failure reason contains TEXT')
      .addOption(new Option('--queue <queue>', 'only this queue').choices(JOB_QUEUE_NAMES))
      .option('-c, --config <file>', 'config file (YAML or JSON)')
      .action(async (opts: { filter?: string; queue?: JobQueueName; config?: string }) => {
        await withClient(opts.config, io, setExitCode, async client => {
          const retried = await client.retryFailed({
            ...(opts.filter && { filter: opts.filter }),
            ...(opts.queue && { queue: opts.queue }),
          });
          for (const job of retried)
            io.stdout.write(
              `retried ${job.queue} trace ${terminalText(job.traceId)}  (${terminalText(job.reason)})\n`,
            );
          io.stderr.write(
            `spanscore jobs: ${retried.length} failed job(s) moved back to waiting\n`,
          );
        });
      }),
  );
  return jobs;
}

async function withClient(
  file: string | undefined,
  io: CliIo,
  setExitCode: (code: number) => void,
  run: (client: ReturnType<typeof createJobsClient>) => Promise<void>,
): Promise<void> {
  const config = await loadConfig(file ? { file } : {});
  if (config.queue.driver !== 'bullmq') {
    io.stderr.write(
      'spanscore jobs: needs the bullmq driver (set REDIS_URL or REDIS_CLUSTER_NODES): the memory driver keeps no jobs outside its process\n',
    );
    setExitCode(2);
    return;
  }
  const redis = createRedisConnection(redisTargetOf(config.queue), 'producer');
  const client = createJobsClient(redis, config.queue.prefix, config.queue.shards);
  try {
    await whenReady(redis);
    await run(client);
  } finally {
    await client.close();
    await redis.quit().catch(() => redis.disconnect());
  }
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}
