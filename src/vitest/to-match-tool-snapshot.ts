import * as vitest from 'vitest';
import type { MatcherState } from 'vitest';
import { asTrace, type MatcherOutcome } from './matcher-report.js';
import { toolSnapshot, type ToolSnapshotOptions } from './tool-snapshot.js';

/** vitest's composable snapshot matchers (4.1+), or a clear error on an older vitest. */
function snapshots(matcher: string): NonNullable<typeof vitest.Snapshots> {
  // Read through the namespace: on a vitest without it, the import is undefined, not an error.
  const found = (vitest as { Snapshots?: typeof vitest.Snapshots }).Snapshots;
  if (!found) throw new TypeError(`${matcher} needs vitest 4.1 or later (its Snapshots helpers)`);
  return found;
}

/**
 * `expect(run).toMatchToolSnapshot(options?)`: the run's tool sequence (see `toolSnapshot`)
 * matches vitest's stored snapshot, written on the first run, updated with `-u`.
 */
export function toMatchToolSnapshot(
  this: MatcherState,
  received: unknown,
  options: ToolSnapshotOptions = {},
): MatcherOutcome {
  const trace = asTrace(received, 'toMatchToolSnapshot');
  return snapshots('toMatchToolSnapshot').toMatchSnapshot.call(
    this,
    toolSnapshot(trace.toolSequence, options),
  );
}

/** The same, stored inline in the test file: `toMatchInlineToolSnapshot(options?, snapshot?)`. */
export function toMatchInlineToolSnapshot(
  this: MatcherState,
  received: unknown,
  optionsOrSnapshot?: ToolSnapshotOptions | string,
  inlineSnapshot?: string,
): MatcherOutcome {
  const trace = asTrace(received, 'toMatchInlineToolSnapshot');
  // As vitest's toMatchInlineSnapshot(properties?, snapshot?): it writes the snapshot after
  // an object first argument, or as the first argument.
  const [options, snapshot] =
    typeof optionsOrSnapshot === 'string'
      ? [{}, optionsOrSnapshot]
      : [optionsOrSnapshot ?? {}, inlineSnapshot];
  const serialized = toolSnapshot(trace.toolSequence, options);
  return snapshot === undefined
    ? snapshots('toMatchInlineToolSnapshot').toMatchInlineSnapshot.call(this, serialized)
    : snapshots('toMatchInlineToolSnapshot').toMatchInlineSnapshot.call(this, serialized, snapshot);
}
