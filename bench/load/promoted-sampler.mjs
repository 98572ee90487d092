/**
 * Preloaded (`node --import`) into the spanscore processes of a load run by
 * `npm run bench -- --promoted-profile`: in every isolate (a process's main thread and each worker
 * thread), V8's sampling heap profiler from `startMs` after start-up for `durationMs`, keeping the
 * sampled objects still alive and those a full collection took, not those a young collection took:
 * what was promoted to the old generation (and what is still live), by the stack that allocated it.
 * Writes `promoted-<pid>-<thread>.heapprofile` (the profile's JSON) into `dir`.
 *
 * Configured by `SPANSCORE_PROMOTED_PROFILE=dir,startMs,durationMs`.
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

const [dir, startMs, durationMs] = (process.env.SPANSCORE_PROMOTED_PROFILE ?? '').split(',');
if (dir && Number(startMs) >= 0 && Number(durationMs) > 0) {
  setTimeout(() => {
    const session = new Session();
    session.connect();
    const post = (method, params) =>
      new Promise((resolve, reject) =>
        session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
      );
    post('HeapProfiler.enable')
      .then(() =>
        post('HeapProfiler.startSampling', {
          samplingInterval: 8192,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: false,
        }),
      )
      .then(() => new Promise(resolve => setTimeout(resolve, Number(durationMs)).unref()))
      .then(() => post('HeapProfiler.getSamplingProfile'))
      .then(({ profile }) => {
        writeFileSync(
          join(dir, `promoted-${process.pid}-${threadId}.heapprofile`),
          JSON.stringify(profile),
        );
        return post('HeapProfiler.stopSampling');
      })
      .catch(error => process.stderr.write(`promoted-sampler: ${error.message}\n`))
      .finally(() => session.disconnect());
  }, Number(startMs)).unref();
}
