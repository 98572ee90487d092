import type { Config } from '../config/config-schema.js';
import { listenService } from './listen-service.js';
import type { Service, ServiceHooks, ServiceRole } from './service.js';
import { startServiceCore } from './service-core.js';

export type { Service, ServiceHooks, ServiceRole } from './service.js';

/**
 * Starts spanscore as a service from a validated config: the queue driver (`memory` in this
 * process, or `bullmq` on Redis, where receivers and workers can run in separate processes on any
 * hosts), the scoring runtime (suites, rules, judge, result sinks) when this process has workers
 * (`startServiceCore`), and the OTLP/HTTP receiver when it has the receiver role, with the results
 * API (`/api/v1`) and page (`/ui/`) on its port (`listenService`). `close()` shuts down in order:
 * the receiver stops accepting and finishes its requests, the driver's workers finish or hand back
 * their traces, the result sinks flush; all within `shutdownDeadlineMs`.
 */
export async function startService(
  config: Readonly<Config>,
  role: ServiceRole,
  hooks: ServiceHooks = {},
): Promise<Service> {
  const log = hooks.log ?? (line => process.stderr.write(`${line}\n`));
  const core = await startServiceCore(config, role, hooks, log);
  return listenService(config, role, core, log);
}
